#!/usr/bin/env python3
"""What a partition report (`--partition-backends="report=FILE"`) says about
an LLM inference step, as lines a test can check (test/Workloads/llm.test):

    weight bytes N                 the step's weights as its regions read them
    placement cpu=N ane=N gpu=N    regions of the optimal plan per backend
    order a < b < c                the strategies cpu/ane/gpu, fastest first
    weight bytes ratio R           with --against OTHER: N / OTHER's N

    scripts/check_llm_report.py int8.json --against fp16.json
"""
import argparse
import json
import sys


def summary(path):
    with open(path) as f:
        function = json.load(f)["functions"][0]
    weights = sum(r["features"]["param_bytes"] for r in function["regions"])
    placed = {b: 0 for b in ("cpu", "ane", "gpu")}
    for r in function["regions"]:
        placed[r["backend"]] += 1
    times = function["step_time"]
    order = sorted((b for b in ("cpu", "ane", "gpu") if b in times), key=lambda b: times[b])
    return weights, placed, order


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("--against", help="another report: print the weight bytes ratio")
    args = parser.parse_args()
    weights, placed, order = summary(args.report)
    print(f"weight bytes {weights}")
    print("placement " + " ".join(f"{b}={n}" for b, n in placed.items()))
    print("order " + " < ".join(order))
    if args.against:
        other, _, _ = summary(args.against)
        print(f"weight bytes ratio {weights / other:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
