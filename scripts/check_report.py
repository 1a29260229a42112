#!/usr/bin/env python3
"""Reads a partition report (schema hwagent.partition) and checks that the
optimal strategy's predicted step time is never worse than any baseline's.
Prints one line per function with every strategy's time.

    hwagent-opt in.mlir --partition-backends="report=r.json" -o /dev/null
    scripts/check_report.py r.json
"""
import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        report = json.load(f)
    if report.get("schema") != "hwagent.partition" or report.get("version") != 1:
        sys.exit(f"{sys.argv[1]}: not a hwagent.partition v1 report")
    ok = True
    for fn in report["functions"]:
        times = fn["step_time"]
        best = times["optimal"]
        worse = [s for s, t in times.items() if s != "optimal" and t < best * (1 - 1e-9)]
        line = ", ".join(f"{s} {t * 1e3:.3f} ms" for s, t in times.items())
        backends = {}
        for region in fn["regions"]:
            backends[region["backend"]] = backends.get(region["backend"], 0) + 1
        placed = ", ".join(f"{n} on {b}" for b, n in sorted(backends.items()))
        status = "ok" if not worse else "WORSE THAN " + ", ".join(worse)
        print(f"@{fn['name']} ({report['target']}): {line}; {placed}: {status}")
        ok &= not worse
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
