#!/usr/bin/env python3
"""Predicted tokens/s and placement of whole-model LLM decode and prefill
steps on every built-in Apple target, beside the published figures they
should match (docs/workloads.md "LLM decode and prefill").

    scripts/llm_routing.py --build build              # plain table
    scripts/llm_routing.py --build build --markdown   # docs/workloads.md's

Every step is generated with all of the model's layers and its LM head
(scripts/llm_workloads.py), partitioned with hwagent-opt
--partition-backends="target=T summary=true". ANE and GPU times are
predictions of the simulated device model; nothing here is measured.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llm_workloads  # noqa: E402 (scripts/ is not a package)

TARGETS = ["apple-m1", "apple-m2-pro", "apple-m4", "apple-m4-max"]
# (model, phase, weights, prompt/context)
CONFIGS = [("1b", "decode", "fp16", 512), ("1b", "decode", "int8", 512),
           ("3b", "decode", "fp16", 512), ("3b", "decode", "int8", 512),
           ("8b", "decode", "fp16", 512), ("8b", "decode", "int8", 512),
           ("7b", "decode", "fp16", 512),
           ("7b", "decode", "int8", 512), ("7b", "prefill", "int8", 512),
           ("8b", "prefill", "fp16", 512)]
# Published figures: (model, phase, weights, target, backend, tokens/s, what,
# source key); docs/workloads.md gives each source in full.
PUBLISHED = [
    ("7b", "decode", "int8", "apple-m1", "gpu", 7.91,
     "LLaMA-2 7B Q8_0 (8.5 bits/weight), tg128, M1 8-core GPU, Metal",
     "llama.cpp #4167"),
    ("7b", "prefill", "int8", "apple-m1", "gpu", 117.25,
     "LLaMA-2 7B Q8_0, pp512, M1 8-core GPU, Metal",
     "llama.cpp #4167"),
    ("8b", "decode", "int8", "apple-m4-max", "gpu", 50.0,
     "Llama-3.1 8B 8-bit, MLX (GPU); llama.cpp 8-bit ~41; Anemll on the ANE ~9 (LUT-compressed)",
     "HN 43879702, MLX"),
    # CPU-only against Metal on the same Mac mini M2 Pro (12-core CPU,
    # 19-core GPU): held out, no value of the device model was chosen
    # against them (docs/validation.md).
    ("7b", "decode", "fp16", "apple-m2-pro", "cpu", 8.49,
     "LLaMA-2 7B f16, eval (ms/token mean of 3) 117.84 on the CPU",
     "GPU-Benchmarks-on-LLM-Inference #1"),
    ("7b", "decode", "fp16", "apple-m2-pro", "gpu", 10.85,
     "LLaMA-2 7B f16, eval (ms/token mean of 3) 92.15 on the GPU (Metal)",
     "GPU-Benchmarks-on-LLM-Inference #1"),
]
UNIT = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
TIME = r"([0-9.]+) (us|ms|s)"


def seconds(value, unit):
    return float(value) * UNIT[unit]


def partition(opt, path, target):
    """(optimal, {strategy: seconds}, {backend: regions}) from summary=true."""
    out = subprocess.run([opt, path, f"--partition-backends=target={target} summary=true",
                          "-o", os.devnull], capture_output=True, text=True, check=True).stderr
    line = next(l for l in out.splitlines() if "predicted step time" in l)
    times = {name: seconds(v, u) for name, v, u in
             re.findall(r"(\w+) " + TIME, line.split(":", 1)[1])}
    placed = {}
    for row in out.splitlines():
        m = re.match(r"\s+\d+\s+(cpu|ane|gpu)\s+\d+\s", row)
        if m:
            placed[m.group(1)] = placed.get(m.group(1), 0) + 1
    return times, placed


def rows(opt, tmp):
    for model, phase, weights, length in CONFIGS:
        cfg = llm_workloads.config(model, phase, layers=None, context=length, prompt=length,
                                   weights=weights, head=True)
        path = os.path.join(tmp, llm_workloads.file_name(cfg))
        with open(path, "w") as f:
            f.write(llm_workloads.step_text(cfg))
        gb = llm_workloads.weight_count(cfg) * (1 if weights == "int8" else 2) / 1e9
        gflop = llm_workloads.flop_count(cfg) / 1e9
        for target in TARGETS:
            times, placed = partition(opt, path, target)
            tokens = cfg["tokens"] * cfg["batch"]
            rate = {k: tokens / v for k, v in times.items()}
            pub = [p for p in PUBLISHED if p[:3] == (model, phase, weights) and p[3] == target]
            yield dict(cfg=f"{model} {phase} {weights}", tokens=tokens, gb=gb, gflop=gflop,
                       target=target,
                       rate=rate, placed=placed, published=pub)


def placement(placed):
    return ", ".join(f"{n} {b}" for b, n in sorted(placed.items(), key=lambda kv: -kv[1]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "hwagent-opt")
    head = ["config", "GFLOP/step", "weights GB/step", "target", "cpu tok/s (modelled)", "ane tok/s (sim.)",
            "gpu tok/s (sim.)", "optimal tok/s", "optimal placement (regions)", "published"]
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
    with tempfile.TemporaryDirectory() as tmp:
        for r in rows(opt, tmp):
            pub = "; ".join(f"{p[4]} {p[5]} ({p[7]}): predicted/published "
                            f"{r['rate'][p[4]] / p[5]:.2f}" for p in r["published"])
            cells = [r["cfg"], f"{r['gflop']:.0f}", f"{r['gb']:.2f}", r["target"]] + \
                [f"{r['rate'][k]:.1f}" for k in ("cpu", "ane", "gpu", "optimal")] + \
                [placement(r["placed"]), pub or "-"]
            print(("| " + " | ".join(cells) + " |") if args.markdown else "  ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
