#!/usr/bin/python3
"""Opens an hwagent HTML report in headless Chromium and checks it.

The page must load offline with no console message (its script throws
none), finish its script (body[data-report-ready="1"]), draw one graph node
per program of its embedded data, and have the legend and every function's
headline, totals (its chosen plan marked) and programs tables. It may hold exactly the two <script> elements
hwagent writes and no inline event handler or javascript: URL anywhere,
so a model file cannot have injected markup. Optionally writes a
screenshot. Exit status 0 when every check passes; each failure is printed.

    scripts/check_html_report.py page.html [--screenshot page.png]
"""

import argparse
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


class Dom(html.parser.HTMLParser):
    """The elements of the DOM Chromium dumps, with their attributes."""

    def __init__(self):
        super().__init__()
        self.elements = []  # (tag, attrs dict)
        self.scripts = []  # text of each <script>
        self._in_script = None

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag == "script":
            self._in_script = ""

    def handle_endtag(self, tag):
        if tag == "script" and self._in_script is not None:
            self.scripts.append(self._in_script)
            self._in_script = None

    def handle_data(self, data):
        if self._in_script is not None:
            self._in_script += data


def chromium_binary(given):
    for name in [given, "chromium", "chromium-browser", "google-chrome"]:
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def run_chromium(binary, args, timeout):
    with tempfile.TemporaryDirectory() as profile:
        command = [binary, "--headless", "--no-sandbox", "--disable-gpu",
                   "--disable-dev-shm-usage",
                   "--no-first-run", "--disable-extensions", "--mute-audio",
                   "--disable-background-networking", "--disable-sync",
                   f"--user-data-dir={profile}", "--enable-logging=stderr",
                   "--v=0", "--virtual-time-budget=3000"] + args
        return subprocess.run(command, capture_output=True, text=True,
                              timeout=timeout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page")
    parser.add_argument("--screenshot")
    parser.add_argument("--chromium")
    parser.add_argument("--select", help="program the screenshot opens "
                        "(show-<function>-<program>)")
    parser.add_argument("--expect-text", action="append", default=[],
                        help="text the rendered page must show")
    parser.add_argument("--timeout", type=int, default=120)
    args = parser.parse_args()

    binary = chromium_binary(args.chromium)
    if not binary:
        print("check_html_report: no chromium (scripts/dev setup installs "
              "Debian's)", file=sys.stderr)
        return 2
    url = "file://" + os.path.abspath(args.page)
    result = run_chromium(binary, ["--dump-dom", url], args.timeout)
    failures = []
    if result.returncode != 0:
        failures.append(f"chromium exited {result.returncode}: "
                        f"{result.stderr[-2000:]}")
    console = [line for line in result.stderr.splitlines() if "CONSOLE" in line]
    failures += [f"console: {line}" for line in console]

    dom = Dom()
    dom.feed(result.stdout)
    body = [a for t, a in dom.elements if t == "body"]
    if not body or body[0].get("data-report-ready") != "1":
        failures.append("the page's script did not finish "
                        "(body[data-report-ready] missing)")
    data = None
    for text in dom.scripts:
        try:
            candidate = json.loads(text)
        except ValueError:
            continue
        if isinstance(candidate, dict) and "functions" in candidate:
            data = candidate
    if data is None:
        failures.append("no embedded report data")
        functions = []
    else:
        functions = data["functions"]
    if len(dom.scripts) != 2:
        failures.append(f"{len(dom.scripts)} <script> elements, hwagent "
                        f"writes 2: markup was injected")
    for tag, attrs in dom.elements:
        for name, value in attrs.items():
            if name.startswith("on"):
                failures.append(f"<{tag}> has an event handler '{name}'")
            if value and re.match(r"\s*javascript:", value, re.I):
                failures.append(f"<{tag} {name}> is a javascript: URL")
    ids = {a.get("id") for _, a in dom.elements if a.get("id")}
    if "legend" not in ids:
        failures.append("no legend")
    programs = sum(len(f["programs"]) for f in functions)
    drawn = sum(1 for t, a in dom.elements
                if t == "g" and re.fullmatch(r"prog-\d+-\d+", a.get("id", "")))
    if "graph-missing" in ids:
        failures.append("no graph drawn")
    elif drawn != programs:
        failures.append(f"{drawn} program nodes drawn, the data has {programs}")
    for f in range(len(functions)):
        for table in (f"headline-{f}", f"totals-{f}", f"programs-{f}", f"details-{f}"):
            if table not in ids:
                failures.append(f"no #{table}")
        rows = sum(1 for t, a in dom.elements
                   if t == "tr" and a.get("data-function") == str(f))
        if rows != len(functions[f]["programs"]):
            failures.append(f"#programs-{f} has {rows} rows, the data "
                            f"{len(functions[f]['programs'])} programs")
    chosen = sum(1 for t, a in dom.elements if t == "tr" and a.get("class") == "chosen")
    if chosen != len(functions):
        failures.append(f"{chosen} strategy rows marked chosen, one per function expected")
    for text in args.expect_text:
        if text not in html.unescape(result.stdout):
            failures.append(f"the page does not show {text!r}")

    if args.screenshot and not failures:
        shot_url = url + (f"#{args.select}" if args.select else "")
        shot = run_chromium(binary, [f"--screenshot={os.path.abspath(args.screenshot)}",
                                     "--window-size=1400,1800",
                                     "--hide-scrollbars", shot_url], args.timeout)
        if shot.returncode != 0 or not os.path.exists(args.screenshot):
            failures.append(f"no screenshot written: {shot.stderr[-2000:]}")

    for failure in failures:
        print(f"check_html_report: {args.page}: {failure}", file=sys.stderr)
    if not failures:
        print(f"check_html_report: {args.page}: ok ({programs} programs drawn, "
              f"{len(functions)} functions, no console message)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
