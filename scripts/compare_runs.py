#!/usr/bin/env python3
"""Checks hwagent-run outputs (with --print-params).

    compare_runs.py decreases RUN [--factor 0.8]   final loss < factor * first
    compare_runs.py agree A B [--rtol 0.02]        losses and parameter checksums close
    compare_runs.py identical A B [C ...]          losses and checksums equal
"""
import argparse
import math
import re
import sys


def read(path):
    text = open(path).read()
    m = re.search(r"hwagent-run: loss (\S+) -> (\S+) over (\d+) steps", text)
    if not m:
        sys.exit(f"{path}: no 'hwagent-run: loss A -> B' line")
    first, last = float(m.group(1)), float(m.group(2))
    params = [(float(a), float(b)) for a, b in
              re.findall(r"param \d+: sum (\S+) sum\|\.\| (\S+)", text)]
    # A hash of each parameter's bytes: `identical` compares every bit.
    bits = re.findall(r"param \d+: .* bits (0x[0-9a-f]+)", text)
    losses = [float(x) for x in re.findall(r"^step\s+\d+\s+loss\s+(\S+)", text, re.M)]
    return first, last, params, losses, bits


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["decreases", "agree", "identical"])
    p.add_argument("files", nargs="+")
    p.add_argument("--factor", type=float, default=0.8)
    p.add_argument("--rtol", type=float, default=0.02)
    a = p.parse_args()
    if a.mode == "decreases":
        first, last, _, _, _ = read(a.files[0])
        ok = math.isfinite(last) and last < a.factor * first
        print(f"loss {first:.4g} -> {last:.4g} (needs < {a.factor} x first): {'ok' if ok else 'FAIL'}")
        return 0 if ok else 1
    runs = [read(path) for path in a.files]
    if any(len(run[2]) != len(runs[0][2]) or not run[2] for run in runs):
        sys.exit("parameter checksums missing or of different counts (run with --print-params)")
    if a.mode == "identical":
        # Every run equal to the first.
        different = [path for path, run in zip(a.files[1:], runs[1:]) if run != runs[0]]
        print(f"identical ({len(runs)} runs): {'ok' if not different else 'FAIL: ' + ', '.join(different)}")
        return 0 if not different else 1
    if len(runs) != 2:
        sys.exit("agree compares two runs")
    (f1, l1, p1, s1, _), (f2, l2, p2, s2, _) = runs
    worst = 0.0
    for (x1, y1), (x2, y2) in zip(p1 + [(l1, l1)], p2 + [(l2, l2)]):
        # sum|.| is the robust measure; a signed sum can cancel to ~0.
        worst = max(worst, abs(y1 - y2) / max(abs(y1), abs(y2), 1e-12))
    ok = worst <= a.rtol
    print(f"largest relative difference {worst:.3e} (rtol {a.rtol}): {'ok' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
