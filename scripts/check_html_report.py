#!/usr/bin/python3
"""Opens an hwagent HTML report in headless Chromium and checks it.

Chromium is driven over the DevTools protocol on a pipe (no port, no
network). The page must load offline with no console message or exception
and no request for anything but itself, finish its script
(body[data-report-ready="1"]), draw one card and one timeline bar per
program of its embedded data, show every function's headline on the first
screen and have the legend, totals (its chosen plan marked) and programs
tables. It may hold exactly the two <script> elements hwagent writes and no
inline event handler or javascript: URL anywhere, so a model file cannot
have injected markup. Then, as a person would: clicking the middle
program's card, timeline bar and table row must open its details inside
the viewport next to what was clicked; the cards' pan and zoom
(check_html_panzoom.py: buttons, Ctrl+wheel around the pointer, keys, drag,
fit, details next to a card clicked at any zoom), search, grouping by
backend, collapsing, the timeline's zoom and (run pages) smoothing must
work. A
comparison page (hwagent-report --compare) must show its headline on the
first screen and open either side's program details next to its row.
Optionally writes a screenshot. Exit status 0 when every check passes;
each failure is printed.

    scripts/check_html_report.py page.html [--screenshot page.png]
        [--select show-<function>-<program>] [--expect-text TEXT]
"""

import argparse
import base64
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import select
import tempfile
import time

from check_html_panzoom import pan_zoom, timeline_pan


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


class Browser:
    """Headless Chromium driven over the DevTools protocol on a pipe (fds 3
    and 4, --remote-debugging-pipe): no port, no network. Collects console
    messages, exceptions and every network request of the page."""

    def __init__(self, binary, width, height, timeout):
        self.timeout = timeout
        self.profile = tempfile.TemporaryDirectory()
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            # Through fresh descriptors: a pipe end may already be 3 or 4.
            read, write = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(read, 3)
            os.dup2(write, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-dev-shm-usage", "--no-first-run",
             "--disable-extensions", "--mute-audio",
             "--disable-background-networking", "--disable-sync",
             "--hide-scrollbars", f"--window-size={width},{height}",
             f"--user-data-dir={self.profile.name}",
             "--remote-debugging-pipe", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            preexec_fn=fds, close_fds=False)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"})
        self.session = self.call("Target.attachToTarget", {
            "targetId": target["targetId"], "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.call(domain + ".enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1,
            "mobile": False}, session=True)

    def _message(self, deadline):
        while b"\0" not in self.buffer:
            wait = deadline - time.time()
            if wait <= 0 or not select.select([self.from_chrome], [], [], wait)[0]:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the pipe: " +
                                   self.proc.stderr.read().decode()[-2000:])
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, session=False):
        self.next_id += 1
        message = {"id": self.next_id, "method": method,
                   "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.time() + self.timeout
        while True:
            reply = self._message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {
            "expression": expression, "returnByValue": True,
            "awaitPromise": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:60]}...: "
                               f"{result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def load(self, url):
        self.call("Page.navigate", {"url": url}, session=True)
        deadline = time.time() + self.timeout
        while time.time() < deadline:
            if self.evaluate("document.readyState === 'complete' && "
                             "!!document.body && document.body.getAttribute("
                             "'data-report-ready') === '1'"):
                return True
            time.sleep(0.05)
        return False

    def click(self, selector):
        """Scrolls the element into view and clicks it with the mouse, as a
        person would: at the point nearest its centre where it is on top (a
        narrow timeline bar can lie partly under its neighbour); returns its
        box, or None when nothing of it can be clicked."""
        box = self.evaluate(
            "(function(){var e=document.querySelector(%s);if(!e)return null;"
            "e.scrollIntoView({block:'center',inline:'center'});"
            "var r=e.getBoundingClientRect(),best=null;"
            "for(var i=0;i<=8;i++)for(var j=0;j<=4;j++){"
            "var x=r.left+r.width*(0.5+(i%%2?1:-1)*Math.ceil(i/2)/10),"
            "y=r.top+r.height*(0.5+(j%%2?1:-1)*Math.ceil(j/2)/6),"
            "h=document.elementFromPoint(x,y);"
            "if(h&&(h===e||e.contains(h))){best={x:x,y:y};i=9;break;}}"
            "if(!best)return null;return {x:r.left,y:r.top,"
            "w:r.width,h:r.height,cx:best.x,cy:best.y};})()"
            % json.dumps(selector))
        if not box:
            return None
        time.sleep(0.1)
        x, y = box["cx"], box["cy"]
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {
                "type": kind, "x": x, "y": y, "button": "left",
                "clickCount": 1}, session=True)
        time.sleep(0.1)
        return box

    def problems(self):
        """Console messages, exceptions, and requests for anything but the
        page itself."""
        out = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled":
                text = " ".join(str(a.get("value", a.get("description", "")))
                                for a in params.get("args", []))
                out.append(f"console.{params.get('type')}: {text}")
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                out.append("exception: " + str(details.get("exception", {})
                                               .get("description", details.get("text"))))
            elif method == "Log.entryAdded":
                entry = params.get("entry", {})
                out.append(f"console ({entry.get('level')}): {entry.get('text')}")
            elif method == "Network.requestWillBeSent":
                url = params.get("request", {}).get("url", "")
                if not url.startswith(("file:", "data:", "about:")):
                    out.append(f"network request: {url}")
        return out

    def close(self):
        try:
            self.call("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self.to_chrome)
        os.close(self.from_chrome)
        self.profile.cleanup()


def dom_checks(page_html, args):
    """What the page holds: the script's data, exactly hwagent's two
    scripts and no handler, the legend, every function's headline, totals,
    programs, cards and timeline bars. Returns (failures, functions)."""
    failures = []
    dom = Dom()
    dom.feed(page_html)
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
    functions = data["functions"] if data else []
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
    cards = sum(1 for _, a in dom.elements
                if re.fullmatch(r"prog-\d+-\d+", a.get("id", "")))
    bars = sum(1 for _, a in dom.elements
               if re.fullmatch(r"bar-\d+-\d+", a.get("id", "")))
    if "graph-missing" in ids:
        failures.append("no graph drawn")
    elif cards != programs or bars != programs:
        failures.append(f"{cards} program cards and {bars} timeline bars "
                        f"drawn, the data has {programs} programs")
    for f in range(len(functions)):
        for table in (f"headline-{f}", f"totals-{f}", f"programs-{f}"):
            if table not in ids:
                failures.append(f"no #{table}")
        rows = sum(1 for t, a in dom.elements
                   if t == "tr" and a.get("data-function") == str(f)
                   and "data-compare" not in a)
        if rows != len(functions[f]["programs"]):
            failures.append(f"#programs-{f} has {rows} rows, the data "
                            f"{len(functions[f]['programs'])} programs")
    chosen = sum(1 for t, a in dom.elements
                 if t == "tr" and a.get("class") == "chosen")
    if chosen != len(functions):
        failures.append(f"{chosen} strategy rows marked chosen, one per "
                        f"function expected")
    for text in args.expect_text:
        if text not in html.unescape(page_html):
            failures.append(f"the page does not show {text!r}")
    return failures, functions


POPOVER = """(function(){var p=document.getElementById('popover');
if(!p||p.hidden)return null;var r=p.getBoundingClientRect();
return {x:r.left,y:r.top,w:r.width,h:r.height,vw:innerWidth,vh:innerHeight,
program:p.getAttribute('data-program'),text:p.textContent};})()"""


def check_details(browser, selector, program):
    """Clicks `selector`; the program's details must open inside the
    viewport, touching (within 24 px) what was clicked."""
    box = browser.click(selector)
    if box is None:
        return [f"nothing to click at {selector} (missing, or covered "
                f"where it is drawn)"]
    shown = browser.evaluate(POPOVER)
    browser.evaluate("document.dispatchEvent(new KeyboardEvent('keydown',"
                     "{key:'Escape'}))")
    if shown is None:
        return [f"clicking {selector} showed no details"]
    failures = []
    if shown["program"] != str(program) or f"#{program} on" not in shown["text"]:
        failures.append(f"clicking {selector} showed program "
                        f"{shown['program']}")
    if (shown["x"] < 0 or shown["y"] < 0
            or shown["x"] + shown["w"] > shown["vw"]
            or shown["y"] + shown["h"] > shown["vh"]):
        failures.append(f"the details of {selector} are outside the "
                        f"viewport: {shown}")
    gap_x = max(0, shown["x"] - (box["x"] + box["w"]),
                box["x"] - (shown["x"] + shown["w"]))
    gap_y = max(0, shown["y"] - (box["y"] + box["h"]),
                box["y"] - (shown["y"] + shown["h"]))
    if gap_x > 24 or gap_y > 24:
        failures.append(f"the details of {selector} open {gap_x:.0f} px, "
                        f"{gap_y:.0f} px away from it")
    return failures


SEARCH = """(function(w){var s=document.getElementById('graph-search');
s.value=w;s.dispatchEvent(new Event('input'));
var shown=[].slice.call(document.querySelectorAll('.prog:not(.filtered)'));
return {shown:shown.length,all:document.querySelectorAll('.prog').length,
hit:!document.getElementById('prog-0-%d').classList.contains('filtered'),
wrong:shown.filter(function(c){
  return c.getAttribute('data-search').indexOf(w)<0;}).length,
count:document.getElementById('search-count').textContent};})(%s)"""

GROUP = """(function(){var g=document.getElementById('group-by');
g.value='backend';g.dispatchEvent(new Event('change'));
var r={groups:document.querySelectorAll('#graph-0 details.group').length,
cards:document.querySelectorAll('#graph-0 .prog').length};
g.value='phase';g.dispatchEvent(new Event('change'));return r;})()"""

COLLAPSE = """(function(){document.getElementById('collapse-all').click();
var n=document.querySelectorAll('details.group[open]').length;
document.getElementById('expand-all').click();return n;})()"""

ZOOM = """(function(){var s=document.querySelector('#timeline-0 svg'),
w=+s.getAttribute('width');
document.querySelector('button[data-zoom=in]').click();
var z=+s.getAttribute('width');
document.querySelector('button[data-zoom=fit]').click();return z/w;})()"""

SMOOTH = """(function(){var s=document.getElementById('smoothing');
if(!s)return null;s.value='0.9';s.dispatchEvent(new Event('input'));
var c=document.querySelector('#step-time-chart');
var r=c.querySelector('polyline.raw'),m=c.querySelector('polyline.smooth');
var out={points:r.getAttribute('points').trim().split(/\\s+/).length,
same:r.getAttribute('points').trim()===m.getAttribute('points').trim()};
s.value='0';s.dispatchEvent(new Event('input'));return out;})()"""


COMPARED = """(function(){var out=[];['a','b'].forEach(function(s){
var rows=document.querySelectorAll('tr[data-compare="'+s+'"]');
if(rows.length){var r=rows[Math.floor(rows.length/2)];
out.push([s,r.getAttribute('data-function'),r.getAttribute('data-program')]);}
});return out;})()"""


def comparison(browser):
    """A comparison page (hwagent-report --compare): its headline on the
    first screen, and a click on either side's program row opens that
    program's details next to it."""
    failures = []
    top = browser.evaluate("(function(){var h=document.getElementById("
                           "'compare-headline');return h?"
                           "h.getBoundingClientRect().top:null;})()")
    if top is None or top > browser.evaluate("innerHeight") - 40:
        failures.append(f"the comparison's headline is not on the first "
                        f"screen (top {top})")
    rows = browser.evaluate(COMPARED)
    if [s for s, _, _ in rows] != ["a", "b"]:
        failures.append(f"the comparison has program rows for {rows}, "
                        f"expected both sides")
    for side, f, p in rows:
        failures += check_details(
            browser, f'tr[data-compare="{side}"][data-function="{f}"]'
            f'[data-program="{p}"]', p)
    return failures


def interactions(browser, functions):
    """The first screen's headline, then click, pan and zoom, search,
    regrouping, collapsing, zoom and smoothing, done in the page as a
    person would."""
    failures = []
    top = browser.evaluate("(function(){var h=document.getElementById("
                           "'headline-0');return h?"
                           "h.getBoundingClientRect().top:null;})()")
    if top is None or top > browser.evaluate("innerHeight") - 40:
        failures.append(f"the headline is not on the first screen (top {top})")
    if browser.evaluate("!!document.getElementById('compare-headline')"):
        failures += comparison(browser)
    if not functions or not browser.evaluate(
            "!!document.getElementById('prog-0-0')"):
        return failures
    programs = functions[0]["programs"]
    p = len(programs) // 2
    for selector in (f"#prog-0-{p}", f"#bar-0-{p}",
                     f'tr[data-function="0"][data-program="{p}"]'):
        failures += check_details(browser, selector, p)
    failures += pan_zoom(browser, p, check_details)
    word = (programs[p].get("ops") or programs[p]["backend"]).split(",")[0]
    word = word.split(" \u00d7")[0].strip().lower()
    found = browser.evaluate(SEARCH % (p, json.dumps(word)))
    if not found["hit"] or found["wrong"] or not found["count"]:
        failures.append(f"searching {word!r} did not find program {p}: "
                        f"{found}")
    none = browser.evaluate(SEARCH % (p, json.dumps("no-such-op-anywhere")))
    if none["shown"]:
        failures.append(f"searching nonsense still shows {none['shown']} "
                        f"programs")
    browser.evaluate(SEARCH % (p, '""'))
    grouped = browser.evaluate(GROUP)
    backends = len({q["backend"] for q in programs})
    if grouped != {"groups": backends, "cards": len(programs)}:
        failures.append(f"grouping by backend gave {grouped}, expected "
                        f"{backends} groups of {len(programs)} cards")
    collapsed = browser.evaluate(COLLAPSE)
    if collapsed:
        failures.append(f"collapse all left {collapsed} groups open")
    zoomed = browser.evaluate(ZOOM)
    if not zoomed or abs(zoomed - 2) > 0.05:
        failures.append(f"zooming in the timeline scaled it by {zoomed}")
    failures += timeline_pan(browser)
    smoothed = browser.evaluate(SMOOTH)
    if smoothed and smoothed["points"] >= 3 and smoothed["same"]:
        failures.append("smoothing 0.9 left the step-time curve unchanged")
    return failures


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
    failures, functions = [], []
    browser = Browser(binary, 1400, 900, args.timeout)
    try:
        if not browser.load(url):
            failures.append("the page's script did not finish "
                            "(body[data-report-ready] missing)")
        page_html = browser.evaluate("document.documentElement.outerHTML")
        found, functions = dom_checks(page_html, args)
        failures += found
        if not failures:
            failures += interactions(browser, functions)
        if args.screenshot and not failures:
            browser.call("Emulation.setDeviceMetricsOverride", {
                "width": 1400, "height": 1800, "deviceScaleFactor": 1,
                "mobile": False}, session=True)
            # A fresh document, so that the #show- anchor runs on load.
            browser.call("Page.navigate", {"url": "about:blank"},
                         session=True)
            browser.load(url + (f"#{args.select}" if args.select else ""))
            time.sleep(0.3)
            shot = browser.call("Page.captureScreenshot", {"format": "png"},
                                session=True)
            with open(args.screenshot, "wb") as out:
                out.write(base64.b64decode(shot["data"]))
        failures += browser.problems()
    except (RuntimeError, TimeoutError) as error:
        failures.append(f"chromium: {error}")
    finally:
        browser.close()

    programs = sum(len(f["programs"]) for f in functions)
    for failure in failures:
        print(f"check_html_report: {args.page}: {failure}", file=sys.stderr)
    if not failures:
        print(f"check_html_report: {args.page}: ok ({programs} programs "
              f"drawn, {len(functions)} functions, no console message)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
