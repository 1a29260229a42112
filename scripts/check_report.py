#!/usr/bin/env python3
"""Reads a partition report (schema hwagent.partition, versions 3 and 4) and checks
that the optimal strategy's objective (step time, joules or their product) is
never worse than any baseline's, that its step time is the sum of its
programs and boundaries, and that its objective lies at or above the reported
lower bound. Prints one line per function with
every strategy's time (null: no legal placement under that strategy).

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
    if report.get("schema") != "hwagent.partition" or report.get("version") not in (3, 4):
        sys.exit(f"{sys.argv[1]}: not a hwagent.partition v3 report")
    ok = True
    for fn in report["functions"]:
        times = fn["step_time"]
        objective = fn["objective"]

        def value(s):
            t, e = times[s], fn["step_energy"][s]
            if t is None:
                return None
            return {"time": t, "energy": e, "edp": e * t}[objective]
        best = value("optimal")
        worse = [s for s in times
                 if s != "optimal" and value(s) is not None and value(s) < best * (1 - 1e-9)]
        if fn["power_cap"]:
            worse = [s for s in worse
                     if fn["step_energy"][s] / times[s] <= fn["power_cap"]]
        line = ", ".join(f"{s} {t * 1e3:.3f} ms" if t is not None else f"{s} illegal"
                         for s, t in times.items())
        parts = fn["program_time"] + fn["boundary_time"]
        if abs(parts - times["optimal"]) > 1e-9 * max(1.0, times["optimal"]):
            worse.append(f"programs+boundaries ({parts})")
        if sum(p["seconds"] for p in fn["programs"]) > fn["program_time"] * (1 + 1e-9) + 1e-12:
            worse.append("program sum")
        if fn["lower_bound"] > best * (1 + 1e-9):
            worse.append(f"lower bound ({fn['lower_bound']})")
        backends = {}
        for region in fn["regions"]:
            backends[region["backend"]] = backends.get(region["backend"], 0) + 1
        placed = ", ".join(f"{n} on {b}" for b, n in sorted(backends.items()))
        status = "ok" if not worse else "WORSE THAN " + ", ".join(worse)
        print(f"@{fn['name']} ({report['target']}): {line}; {placed}; "
              f"{len(fn['programs'])} program"
              f"{'' if len(fn['programs']) == 1 else 's'}, gap to lower bound "
              f"{fn['gap_to_lower_bound'] * 100:.1f} %: {status}")
        ok &= not worse
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
