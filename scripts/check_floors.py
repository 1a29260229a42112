#!/usr/bin/env python3
"""Checks the floor plan of docs/design.md ("Floors") and the size limits.

    scripts/check_floors.py [--root DIR] [--build DIR] [--report]

Checks, each failure one line naming the file:
  - includes: a file includes only headers of its own folder or of a floor
    below it (the FLOORS table); the MLIR-free floors include no LLVM/MLIR;
    the runtime's public headers include only each other;
  - top level: the folders of the fixed top level (lib, runtime, dialects,
    tools) include each other in one direction only;
  - sizes: no source file over 550 lines and no C++ function over 100 lines
    in dialects/, lib/, runtime/ and tools/;
  - with --build (a configured and built tree): no call between object
    files runs back up a floor, so no file-level call loop spans two
    folders (strong definitions and uses read with nm).

--report prints the measurements (file sizes, function sizes, edges) instead
of failing on them. Runs in the test command (ctest: floors).
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys

# Floors, lowest first. A folder may include (and call) its own files and
# those of lower floors. Headers in include/HwAgent/<X> belong to lib/<X>.
FLOORS = [
    ("core", ["lib/Core", "include/HwAgent/Core"]),
    ("runtime", ["runtime"]),
    ("config", ["lib/Config", "include/HwAgent/Config"]),
    ("learn", ["lib/Learn", "include/HwAgent/Learn"]),
    ("report", ["lib/Report", "include/HwAgent/Report"]),
    ("report-html", ["lib/ReportHtml", "include/HwAgent/ReportHtml"]),
    ("ir", ["dialects/HwAgent/IR"]),
    ("analysis", ["dialects/HwAgent/Analysis"]),
    ("transforms", ["dialects/HwAgent/Transforms"]),
    ("driver", ["tools/Driver"]),
    ("trainer", ["tools/Trainer"]),
    ("tools", ["tools/hwagent-*"]),
]
# Floors whose code has no LLVM or MLIR dependency.
NO_LLVM = {"core", "runtime"}
# Where `#include "..."` is resolved from (besides the including folder).
INCLUDE_ROOTS = ["include", "dialects", "runtime/include", "tools"]
# Generated files and the folder whose sources generate them.
GENERATED = [
    (re.compile(r"^HwAgent/IR/.*\.inc$"), "dialects/HwAgent/IR"),
    (re.compile(r"^HwAgent/Transforms/.*\.inc$"), "dialects/HwAgent/Transforms"),
    (re.compile(r"^HwAgent/ReportHtml/.*\.inc$"), "lib/ReportHtml"),
]
TOP_LEVEL = ["lib", "include", "runtime", "dialects", "tools"]
SIZE_ROOTS = ["dialects", "lib", "runtime", "tools"]
SOURCE_EXT = (".cpp", ".h", ".hpp", ".c", ".td", ".py", ".js", ".css")
CXX_EXT = (".cpp", ".h", ".hpp", ".c")
MAX_FILE_LINES = 550
MAX_FUNCTION_LINES = 100
SYSTEM_PREFIXES = ("mlir/", "llvm/", "absl/", "nlohmann/", "oneapi/",
                   "boost/", "gtest/", "benchmark/", "xgboost/")


def floor_of(path):
    """(index, name) of the floor holding `path`, or None."""
    for index, (name, folders) in enumerate(FLOORS):
        for folder in folders:
            if "*" in folder:
                head = folder.split("/")[0]
                parts = path.split("/")
                if len(parts) > 1 and fnmatch.fnmatch(
                        "/".join(parts[:2]), folder):
                    return index, name
                continue
            if path == folder or path.startswith(folder + "/"):
                # The most specific folder wins (lib/Report vs
                # lib/ReportHtml are distinct prefixes already).
                return index, name
    return None


def sources(root, roots, exts):
    for top in roots:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames
                                 if d not in ("__pycache__", "Inputs"))
            for f in sorted(filenames):
                if f.endswith(exts):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def resolve(root, including, header):
    """The repository path `header` names, or None (system or external)."""
    for pattern, folder in GENERATED:
        if pattern.match(header):
            return os.path.join(folder, os.path.basename(header))
    candidates = [os.path.join(os.path.dirname(including), header)]
    candidates += [os.path.join(r, header) for r in INCLUDE_ROOTS]
    for c in candidates:
        if os.path.isfile(os.path.join(root, c)):
            return os.path.normpath(c)
    return None


INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)


def check_includes(root, errors, edges):
    for path in sources(root, ["lib", "include", "runtime", "dialects",
                               "tools"], CXX_EXT):
        mine = floor_of(path)
        text = open(os.path.join(root, path), encoding="utf-8").read()
        for header in INCLUDE_RE.findall(text):
            if mine and mine[1] in NO_LLVM and header.startswith(
                    ("mlir/", "llvm/")):
                errors.append(f"{path}: includes {header}: the {mine[1]} "
                              f"floor has no LLVM/MLIR dependency")
            target = resolve(root, path, header)
            if target is None:
                continue
            theirs = floor_of(target)
            edges.add((path.split("/")[0], target.split("/")[0]))
            if path.startswith("runtime/include/") and not target.startswith(
                    "runtime/include/"):
                errors.append(f"{path}: the runtime's public header includes "
                              f"{target}")
            if not mine or not theirs:
                continue
            if theirs[0] > mine[0]:
                errors.append(f"{path}: includes {header} ({theirs[1]}), a "
                              f"floor above {mine[1]}")


def top_level_loops(edges):
    """Pairs of top-level folders that include each other."""
    owner = {"include": "lib"}
    folded = {(owner.get(a, a), owner.get(b, b)) for a, b in edges}
    folded = {(a, b) for a, b in folded if a != b and a in TOP_LEVEL
              and b in TOP_LEVEL}
    return sorted({tuple(sorted((a, b))) for a, b in folded
                   if (b, a) in folded})


def strip_code(text):
    """`text` with comments, strings, character literals and preprocessor
    lines blanked, line breaks kept (so line numbers stay)."""
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*",
                  lambda m: "\n" * m.group(0).count("\n"), text, flags=re.M)
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i)
                end = n if end < 0 else end + len(m.group(1)) + 2
                out.append('""' + "\n" * text.count("\n", i, end))
                i = end
            else:
                out.append(c)
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


CONTROL = re.compile(r"\b(if|for|while|switch|catch|do|else|return)\b\s*\(?")
TYPE_BLOCK = re.compile(r"\b(namespace|class|struct|union|enum)\b")


def functions(path, text):
    """(name, first line, last line) of every function body at namespace or
    class scope."""
    code = strip_code(text)
    result = []
    # Stack of (kind, start line, name): kind 'scope' (namespace, class,
    # extern block), 'function', or 'block' (anything else).
    stack = []
    head_start = 0
    line = 1
    i = 0
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        if c not in "{};":
            continue
        if c == ";":
            head_start = i + 1
            continue
        if c == "}":
            if stack:
                kind, start, name = stack.pop()
                if kind == "function":
                    result.append((name, start, line))
            head_start = i + 1
            continue
        head = code[head_start:i]
        inside_function = any(k == "function" for k, _, _ in stack)
        stripped = head.strip()
        start_line = line - head.count("\n") + (
            len(head) - len(head.lstrip()) and head[:len(head) - len(
                head.lstrip())].count("\n"))
        kind = "block"
        name = ""
        if not inside_function:
            if TYPE_BLOCK.search(stripped) and "(" not in stripped.split(
                    "{")[0].split("=")[0]:
                kind = "scope"
            elif stripped.startswith('extern "C"') or stripped == 'extern ""':
                kind = "scope"
            elif ")" in stripped and not CONTROL.match(stripped) and not \
                    stripped.endswith("=") and "=" not in stripped.split(
                        "(")[0]:
                kind = "function"
                m = re.search(r"([~\w:]+|operator[^\s(]*)\s*\(", stripped)
                name = m.group(1) if m else "?"
            elif stripped.startswith("template") or stripped == "":
                kind = "scope" if stripped == "" and not stack else "block"
        stack.append((kind, start_line, name))
        head_start = i + 1
    return result


def check_sizes(root, errors, report):
    files, funcs = [], []
    for path in sources(root, SIZE_ROOTS, SOURCE_EXT):
        text = open(os.path.join(root, path), encoding="utf-8").read()
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        files.append((lines, path))
        if lines > MAX_FILE_LINES:
            errors.append(f"{path}: {lines} lines (at most {MAX_FILE_LINES})")
        if path.endswith(CXX_EXT):
            for name, first, last in functions(path, text):
                size = last - first + 1
                funcs.append((size, path, name, first))
                if size > MAX_FUNCTION_LINES:
                    errors.append(f"{path}:{first}: {name} is {size} lines "
                                  f"(at most {MAX_FUNCTION_LINES})")
    if report:
        print("largest files:")
        for lines, path in sorted(files, reverse=True)[:15]:
            print(f"  {lines:5d} {path}")
        print("largest functions:")
        for size, path, name, first in sorted(funcs, reverse=True)[:25]:
            print(f"  {size:5d} {path}:{first} {name}")


def object_files(build):
    for dirpath, _, filenames in os.walk(build):
        if "CMakeFiles" not in dirpath:
            continue
        for f in filenames:
            if f.endswith((".cpp.o", ".c.o")):
                yield os.path.join(dirpath, f)


def source_of(root, build, obj):
    """The source path (relative to the root) an object was built from."""
    rel = os.path.relpath(obj, build)
    parts = rel.split(os.sep)
    if "CMakeFiles" not in parts:
        return None
    k = parts.index("CMakeFiles")
    within = parts[k + 2:]  # after <target>.dir
    src = "/".join(parts[:k] + within)[:-2]
    if os.path.isfile(os.path.join(root, src)):
        return src
    return None


def check_calls(root, build, errors, report):
    """Floor order of calls between object files (strong symbols only)."""
    defined, used = {}, {}
    for obj in object_files(build):
        src = source_of(root, build, obj)
        # Each source once (the runtime's are in its shared and static
        # libraries alike).
        if not src or not floor_of(src) or src in used:
            continue
        out = subprocess.run(["nm", "-g", obj], capture_output=True,
                             text=True).stdout
        used[src] = set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                used[src].add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBR":
                defined.setdefault(parts[2], set()).add(src)
    edges = set()
    for src, symbols in used.items():
        for s in symbols:
            for target in defined.get(s, ()):
                if target != src:
                    edges.add((src, target))
    folder = lambda p: os.path.dirname(p)
    folders = {(folder(a), folder(b)) for a, b in edges
               if folder(a) != folder(b)}
    for a, b in sorted(edges):
        fa, fb = floor_of(a), floor_of(b)
        if fa and fb and fb[0] > fa[0]:
            errors.append(f"{a}: calls into {b} ({fb[1]}), a floor above "
                          f"{fa[1]}")
    loops = sorted({tuple(sorted(p)) for p in folders
                    if (p[1], p[0]) in folders})
    for a, b in loops:
        errors.append(f"{a} and {b} call each other (a file-level loop "
                      f"between folders)")
    if report:
        print(f"calls between files of different folders: {len(folders)} "
              f"folder pairs, loops: {loops or 'none'}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--build", default="")
    parser.add_argument("--report", action="store_true")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    errors, edges = [], set()
    check_includes(root, errors, edges)
    for a, b in top_level_loops(edges):
        errors.append(f"{a}/ and {b}/ include each other")
    check_sizes(root, errors, args.report)
    if args.build:
        check_calls(root, os.path.abspath(args.build), errors, args.report)
    for e in errors:
        print(e)
    if args.report:
        print(f"{len(errors)} findings")
        return 0
    if errors:
        print(f"check_floors: {len(errors)} findings (docs/design.md, "
              f"\"Floors\")")
        return 1
    print("check_floors: floors, sizes and calls as docs/design.md says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
