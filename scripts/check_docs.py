#!/usr/bin/env python3
"""Docs = code: runs every command block of README.md and checks that every
option README.md and docs/*.md name exists.

    scripts/check_docs.py --build build [--root .] [--only-options]

Command blocks: every ```sh block of README.md, each command run as the
README writes it, from a scratch directory that has the repository's
examples/, scripts/ and build/ (and ../shared when the checkout has it), in
order (a block may use what an earlier one wrote). A command fails the check
when it exits non-zero. Two rules keep the test command fast, both printed
when they apply, never silent:
  - HWAGENT_MAX_STEPS caps every hwagent-run at a few steps (the README's
    training runs take minutes; hwagent-run says so on its first line);
  - `scripts/dev ...` is not run: it is the build and the test command this
    check runs inside (the README's other blocks run what it would).

Figures: a paragraph of README.md or docs/*.md that quotes a figure (a
time, a throughput, a percentage, a ratio) measured on a machine it names
(this VM, AMD EPYC, Intel, this machine) must say when it was measured: a
date (YYYY-MM-DD) in the paragraph or in the heading above it.

Options: every `--name` in README.md and docs/*.md must be one a program of
the repository takes: in the --help of the tools, or written as "--name" in
the sources of the benchmarks and scripts; and every key of a pass pipeline
string (`--partition-backends="key=value ..."`) must be one of that pass's
options. The few options of other programs the docs name (cmake, perf,
mlir-translate...) are listed below with their program.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Options of programs outside the repository that the docs name.
EXTERNAL = {
    "--install": "cmake", "--prefix": "cmake", "--build": "cmake",
    "--call-graph": "perf record", "--mlir-to-llvmir": "mlir-translate",
    "--help": "every tool", "--gtest_filter": "GoogleTest",
    "--output-on-failure": "ctest", "--jit": "perf inject",
    "--vector-library": "opt (LLVM)",
}
MAX_STEPS = "3"
TOOLS = ["hwagent-opt", "hwagent-run", "hwagent-calibrate", "hwagent-report",
         "hwagent-import", "hwagent-learn"]


def command_blocks(readme):
    """(line, command) for each command of each ```sh block."""
    lines = open(readme, encoding="utf-8").read().split("\n")
    commands, inside = [], False
    current, start = "", 0
    for number, line in enumerate(lines, 1):
        if line.strip().startswith("```"):
            inside = line.strip() == "```sh" if not inside else False
            continue
        if not inside:
            continue
        text = line.split("   #")[0].rstrip() if "   #" in line else line
        if not current:
            start = number
        if text.endswith("\\"):
            current += text[:-1] + " "
            continue
        current += text
        if current.strip() and not current.strip().startswith("#"):
            commands.append((start, current.strip()))
        current = ""
    return commands


def run_blocks(root, build, failures):
    scratch = tempfile.mkdtemp(prefix="hwagent-docs-")
    work = os.path.join(scratch, "work")
    os.makedirs(work)
    for name in ["examples", "scripts"]:
        os.symlink(os.path.join(root, name), os.path.join(work, name))
    os.symlink(build, os.path.join(work, "build"))
    shared = os.path.join(root, "..", "shared")
    if os.path.isdir(shared):
        os.symlink(os.path.abspath(shared), os.path.join(scratch, "shared"))
    env = dict(os.environ, HWAGENT_MAX_STEPS=MAX_STEPS)
    ran = 0
    try:
        for line, command in command_blocks(os.path.join(root, "README.md")):
            if command.startswith("scripts/dev"):
                print(f"README.md:{line}: not run (the build and test "
                      f"command this check runs in): {command}")
                continue
            if "../shared/" in command and not os.path.isdir(shared):
                print(f"README.md:{line}: not run (no ../shared in this "
                      f"checkout): {command}")
                continue
            result = subprocess.run(["bash", "-c", command], cwd=work,
                                    env=env, capture_output=True, text=True,
                                    timeout=600)
            ran += 1
            if result.returncode != 0:
                tail = (result.stdout + result.stderr).strip()[-1500:]
                failures.append(f"README.md:{line}: `{command}` exited "
                                f"{result.returncode}:\n{tail}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return ran


def known_options(root, build):
    text = ""
    for tool in TOOLS:
        path = os.path.join(build, "bin", tool)
        for flag in ["--help", "--help-hidden"]:
            result = subprocess.run([path, flag], capture_output=True,
                                    text=True)
            text += result.stdout + result.stderr
    options = set(re.findall(r"--([a-z][a-z0-9_-]*)", text))
    # Pipeline and pass options: "  --partition-backends" followed by its
    # "    --key=<...>" lines in hwagent-opt's help.
    passes = {}
    current = None
    for line in text.split("\n"):
        m = re.match(r"^ {4,6}--([a-z][a-z0-9-]*)\s", line)
        if m:
            current = m.group(1)
            passes.setdefault(current, set())
            continue
        m = re.match(r"^ {7,}--([a-z][a-z0-9-]*)[=\s]", line)
        if m and current:
            passes[current].add(m.group(1))
    sources = glob.glob(os.path.join(root, "bench", "*.cpp")) + \
        glob.glob(os.path.join(root, "bench", "*.py")) + \
        glob.glob(os.path.join(root, "scripts", "*")) + \
        glob.glob(os.path.join(root, "tools", "**", "*.py"), recursive=True)
    for path in sources:
        if os.path.isfile(path):
            options.update(re.findall(r"[\"']--([a-z][a-z0-9_-]*)[=\"']",
                                      open(path, encoding="utf-8",
                                           errors="replace").read()))
    return options, passes


def check_options(root, build, failures):
    options, passes = known_options(root, build)
    docs = [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")))
    named = 0
    for doc in docs:
        for number, line in enumerate(open(doc, encoding="utf-8"), 1):
            for m in re.finditer(r"(?<![\w-])--([a-z][a-z0-9_-]*)(=\"([^\"]*)\")?",
                                 line):
                name = m.group(1)
                named += 1
                where = f"{os.path.relpath(doc, root)}:{number}"
                if name not in options and "--" + name not in EXTERNAL:
                    failures.append(f"{where}: --{name} is no option of "
                                    f"hwagent's programs")
                if m.group(3) and name in passes:
                    for key in re.findall(r"(?:^|\s)([a-z][a-z0-9-]*)=",
                                          m.group(3)):
                        if key not in passes[name]:
                            failures.append(f"{where}: {key}= is no option "
                                            f"of --{name}")
    return named


FIGURE = re.compile(r"\d[\d.,]*\s?(?:ns|us|ms|s|GFLOP/s|GB/s|minutes|min|%|x)"
                    r"(?!\w)")
MACHINE = re.compile(r"\b(?:VM|AMD EPYC|Intel|this machine)\b")
DATE = re.compile(r"20\d\d-\d\d-\d\d")


def paragraphs(path):
    """(line, text) of each paragraph, list item and table row outside code
    blocks, the text prefixed with the heading it is under."""
    inside, heading, current, start = False, "", [], 0
    out = []
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if line.strip().startswith("```"):
            inside = not inside
        starts = (inside or not line.strip() or line.startswith("#")
                  or line.lstrip().startswith("- ") or line.startswith("|")
                  or line.strip().startswith("```"))
        if starts and current:
            out.append((start, heading + " " + " ".join(current)))
            current = []
        if inside or line.strip().startswith("```") or not line.strip():
            continue
        if line.startswith("#"):
            heading = line
            continue
        if not current:
            start = number
        current.append(line)
    if current:
        out.append((start, heading + " " + " ".join(current)))
    return out


def check_figures(root, failures):
    """Figures measured on a machine say when."""
    docs = [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")))
    checked = 0
    for doc in docs:
        for number, text in paragraphs(doc):
            if not (FIGURE.search(text) and MACHINE.search(text)):
                continue
            checked += 1
            if not DATE.search(text):
                failures.append(
                    f"{os.path.relpath(doc, root)}:{number}: a figure "
                    f"measured on a machine without the date it was "
                    f"measured (YYYY-MM-DD in the paragraph or its "
                    f"heading): {text.split(' ', 1)[-1][:120]}...")
    return checked


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--build", required=True)
    parser.add_argument("--only-options", action="store_true")
    args = parser.parse_args()
    root, build = os.path.abspath(args.root), os.path.abspath(args.build)
    failures = []
    named = check_options(root, build, failures)
    dated = check_figures(root, failures)
    ran = 0 if args.only_options else run_blocks(root, build, failures)
    for f in failures:
        print(f)
    print(f"check_docs: {ran} README commands run, {named} option mentions "
          f"checked, {dated} measured figures dated, {len(failures)} "
          f"failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
