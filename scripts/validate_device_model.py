#!/usr/bin/env python3
"""Validates hwagent's device model against published measurements.

Builds the workloads behind the figures in docs/ane-facts.md (copied from the
design's calibration set, with sources), predicts each with
`hwagent-opt --partition-backends` (strategy cpu / ane / gpu: every region on
that backend where legal) and prints predicted vs published with the ratio
per row, then every published "which backend is faster" comparison and
whether the prediction goes the same way round.

Run on demand, not a test:

    scripts/validate_device_model.py [--build build] [--markdown]

Goal (issue 11): every ratio within 0.7-1.4x and every comparison the same
way round. The table in docs/validation.md is this script's --markdown output.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

# --------------------------------------------------------------------------
# MLIR builders (linalg on tensors, NCHW, f32 as torch-mlir exports them)
# --------------------------------------------------------------------------


class Builder:
    def __init__(self):
        self.args = []   # (name, type)
        self.lines = []
        self.n = 0

    def fresh(self, base="v"):
        self.n += 1
        return f"%{base}{self.n}"

    def arg(self, type_):
        name = f"%a{len(self.args)}"
        self.args.append((name, type_))
        return name

    def emit(self, line):
        self.lines.append("  " + line)

    def zeros(self, shape):
        t = tensor(shape)
        e, f = self.fresh("e"), self.fresh("z")
        self.emit(f"{e} = tensor.empty() : {t}")
        self.emit(f"{f} = linalg.fill ins(%zero : f32) outs({e} : {t}) -> {t}")
        return f

    def pad(self, x, shape, p):
        if p == 0:
            return x, shape
        out = shape[:2] + [shape[2] + 2 * p, shape[3] + 2 * p]
        r = self.fresh("p")
        self.emit(f"{r} = tensor.pad {x} low[0, 0, {p}, {p}] high[0, 0, {p}, {p}] {{\n"
                  f"  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n"
                  f"    tensor.yield %zero : f32\n"
                  f"  }} : {tensor(shape)} to {tensor(out)}")
        return r, out

    def conv(self, x, shape, cout, k, stride):
        x, padded = self.pad(x, shape, k // 2)
        n, cin, h, w = padded
        oh, ow = (h - k) // stride + 1, (w - k) // stride + 1
        out = [n, cout, oh, ow]
        wt = self.arg(tensor([cout, cin, k, k]))
        z = self.zeros(out)
        r = self.fresh("c")
        self.emit(f"{r} = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, "
                  f"strides = dense<{stride}> : tensor<2xi64>}} ins({x}, {wt} : "
                  f"{tensor(padded)}, {tensor([cout, cin, k, k])}) outs({z} : {tensor(out)}) "
                  f"-> {tensor(out)}")
        return r, out

    def depthwise(self, x, shape, stride):
        x, padded = self.pad(x, shape, 1)
        n, c, h, w = padded
        oh, ow = (h - 3) // stride + 1, (w - 3) // stride + 1
        out = [n, c, oh, ow]
        wt = self.arg(tensor([c, 3, 3]))
        z = self.zeros(out)
        r = self.fresh("d")
        self.emit(f"{r} = linalg.depthwise_conv_2d_nchw_chw {{dilations = dense<1> : tensor<2xi64>, "
                  f"strides = dense<{stride}> : tensor<2xi64>}} ins({x}, {wt} : "
                  f"{tensor(padded)}, {tensor([c, 3, 3])}) outs({z} : {tensor(out)}) "
                  f"-> {tensor(out)}")
        return r, out

    def relu(self, x, shape):
        t = tensor(shape)
        rank = len(shape)
        ids = ", ".join(f"d{i}" for i in range(rank))
        m = f"affine_map<({ids}) -> ({ids})>"
        e, r = self.fresh("e"), self.fresh("r")
        iterators = ", ".join(['"parallel"'] * rank)
        self.emit(f"{e} = tensor.empty() : {t}")
        self.emit(f"{r} = linalg.generic {{indexing_maps = [{m}, {m}], iterator_types = "
                  f"[{iterators}]}} ins({x} : {t}) outs({e} : {t}) {{\n"
                  f"  ^bb0(%in: f32, %out: f32):\n"
                  f"    %m = arith.maximumf %in, %zero : f32\n"
                  f"    linalg.yield %m : f32\n"
                  f"  }} -> {t}")
        return r

    def matmul(self, a, m, k, n, b=None):
        b = b or self.arg(tensor([k, n]))
        z = self.zeros([m, n])
        r = self.fresh("mm")
        self.emit(f"{r} = linalg.matmul ins({a}, {b} : {tensor([m, k])}, {tensor([k, n])}) "
                  f"outs({z} : {tensor([m, n])}) -> {tensor([m, n])}")
        return r

    def batch_matmul(self, a, bsz, m, k, n, b):
        z = self.zeros([bsz, m, n])
        r = self.fresh("bm")
        self.emit(f"{r} = linalg.batch_matmul ins({a}, {b} : {tensor([bsz, m, k])}, "
                  f"{tensor([bsz, k, n])}) outs({z} : {tensor([bsz, m, n])}) -> {tensor([bsz, m, n])}")
        return r

    def reshape(self, x, src, dst):
        r = self.fresh("rs")
        shape_c = self.fresh("shape")
        self.emit(f"{shape_c} = arith.constant dense<[{', '.join(map(str, dst))}]> : tensor<{len(dst)}xi64>")
        self.emit(f"{r} = tensor.reshape {x}({shape_c}) : ({tensor(src)}, tensor<{len(dst)}xi64>) -> {tensor(dst)}")
        return r

    def module(self, result, result_type):
        sig = ", ".join(f"{n}: {t}" for n, t in self.args)
        body = "\n".join(self.lines)
        return (f"func.func @forward({sig}) -> {result_type} {{\n"
                f"  %zero = arith.constant 0.0 : f32\n{body}\n"
                f"  return {result} : {result_type}\n}}\n")


def tensor(shape):
    return "tensor<" + "x".join(map(str, shape)) + "xf32>"


def mobilenet_v1():
    """MobileNetV1-224 (alpha 1), batch 1: 569 M multiply-adds."""
    b = Builder()
    x = b.arg(tensor([1, 3, 224, 224]))
    x, s = b.conv(x, [1, 3, 224, 224], 32, 3, 2)
    x = b.relu(x, s)
    blocks = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + \
        [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
    for cout, stride in blocks:
        x, s = b.depthwise(x, s, stride)
        x = b.relu(x, s)
        x, s = b.conv(x, s, cout, 1, 1)
        x = b.relu(x, s)
    # Global average pool as a reduction, then the classifier.
    e = b.zeros([1, 1024])
    r = b.fresh("pool")
    b.emit(f"{r} = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, "
           f"affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\", "
           f"\"reduction\", \"reduction\"]}} ins({x} : {tensor(s)}) outs({e} : {tensor([1, 1024])}) {{\n"
           f"  ^bb0(%in: f32, %out: f32):\n    %a = arith.addf %in, %out : f32\n    linalg.yield %a : f32\n"
           f"  }} -> {tensor([1, 1024])}")
    y = b.matmul(r, 1, 1024, 1000)
    return b.module(y, tensor([1, 1000]))


def conv_chain(depth):
    """`depth` chained 1x1 convolutions, 512 channels, 64 positions."""
    b = Builder()
    s = [1, 512, 1, 64]
    x = b.arg(tensor(s))
    for _ in range(depth):
        x, s = b.conv(x, s, 512, 1, 1)
    return b.module(x, tensor(s))


def gemm(n):
    b = Builder()
    a = b.arg(tensor([n, n]))
    y = b.matmul(a, n, n, n)
    return b.module(y, tensor([n, n]))


def llama_layer(seq=512, dim=4096, ffn=11008, heads=32):
    """A LLaMA-7B-shaped decoder layer forward (no norms' weights, RoPE
    omitted): q/k/v/o projections, attention per head, SiLU-gated FFN."""
    b = Builder()
    hd = dim // heads
    x = b.arg(tensor([seq, dim]))
    q = b.matmul(x, seq, dim, dim)
    k = b.matmul(x, seq, dim, dim)
    v = b.matmul(x, seq, dim, dim)
    q3 = b.reshape(q, [seq, dim], [heads, seq, hd])
    kt = b.reshape(k, [seq, dim], [heads, hd, seq])   # layout only: same bytes
    v3 = b.reshape(v, [seq, dim], [heads, seq, hd])
    scores = b.batch_matmul(q3, heads, seq, hd, seq, kt)
    ctx = b.batch_matmul(scores, heads, seq, seq, hd, v3)
    ctx2 = b.reshape(ctx, [heads, seq, hd], [seq, dim])
    o = b.matmul(ctx2, seq, dim, dim)
    g = b.matmul(o, seq, dim, ffn)
    u = b.matmul(o, seq, dim, ffn)
    gr = b.relu(g, [seq, ffn])   # SiLU stands in: same elementwise cost class
    t = tensor([seq, ffn])
    e, h = b.fresh("e"), b.fresh("h")
    b.emit(f"{e} = tensor.empty() : {t}")
    b.emit(f"{h} = linalg.mul ins({gr}, {u} : {t}, {t}) outs({e} : {t}) -> {t}")
    d = b.matmul(h, seq, ffn, dim)
    return b.module(d, tensor([seq, dim]))


def tiny():
    """A tiny model under the launch floor: one 64x64 matmul and a ReLU."""
    b = Builder()
    x = b.arg(tensor([64, 64]))
    y = b.matmul(x, 64, 64, 64)
    y = b.relu(y, [64, 64])
    return b.module(y, tensor([64, 64]))


# --------------------------------------------------------------------------
# Published rows (docs/ane-facts.md): (label, workload, target, strategy,
# extra partition options, published seconds, source row)
# --------------------------------------------------------------------------

MS = 1e-3


def gemm_seconds(n, tflops):
    return 2.0 * n ** 3 / (tflops * 1e12)


ROWS = [
    ("MobileNetV1-224, ANE", "mobilenet", "apple-m1", "ane", "", 1.05 * MS, "1: TF PR #47605"),
    ("MobileNetV1-224, GPU", "mobilenet", "apple-m1", "gpu", "", 2.70 * MS, "1: TF PR #47605"),
    ("MobileNetV1-224, CPU 4 threads", "mobilenet", "apple-m1", "cpu", "", 9.09 * MS, "1: TF PR #47639"),
    ("MobileNetV1-224, CPU 1 thread", "mobilenet", "apple-m1:threads=1", "cpu", "", 18.8 * MS, "1: TF PR #47639"),
    ("1x1 conv chain x32, ANE", "chain32", "apple-m4-max", "ane", "", 0.408 * MS, "1: maderix BENCHMARK_RESULTS"),
    ("1x1 conv chain x64, ANE", "chain64", "apple-m4-max", "ane", "", 0.244 * MS, "1: maderix BENCHMARK_RESULTS"),
    ("1x1 conv chain x128, ANE", "chain128", "apple-m4-max", "ane", "", 0.385 * MS, "1: maderix BENCHMARK_RESULTS"),
]
for n, ane, gpu, cpu in [(512, 1.29, 0.26, 1.21), (1024, 2.88, 1.34, 1.43),
                         (2048, 4.89, 2.69, 1.44), (4096, 5.44, 2.80, 1.50)]:
    ROWS += [
        (f"GEMM {n}, ANE", f"gemm{n}", "apple-m4", "ane", "", gemm_seconds(n, ane), "2: ANEForge rooflines"),
        (f"GEMM {n}, GPU", f"gemm{n}", "apple-m4", "gpu", "", gemm_seconds(n, gpu), "2: ANEForge rooflines"),
        (f"GEMM {n}, CPU", f"gemm{n}", "apple-m4", "cpu", "", gemm_seconds(n, cpu), "2: ANEForge rooflines"),
    ]
ROWS += [
    ("LLaMA-7B layer fwd seq 512, weights as inputs, ANE", "llama", "apple-m4-max", "ane",
     "weights-as-inputs=true", 3.13 / 32, "2: rustane README"),
    ("tiny model, ANE (launch floor)", "tiny", "apple-m4", "ane", "", 0.10 * MS, "1: maderix part 2"),
    ("tiny model, ANE (launch floor)", "tiny", "apple-m1", "ane", "", 0.21 * MS, "1: ANEForge / ane-guide"),
]

# Published orderings: (faster row label, slower row label)
COMPARISONS = [
    ("MobileNetV1-224, ANE", "MobileNetV1-224, GPU"),
    ("MobileNetV1-224, GPU", "MobileNetV1-224, CPU 4 threads"),
    ("MobileNetV1-224, CPU 4 threads", "MobileNetV1-224, CPU 1 thread"),
] + [(f"GEMM {n}, ANE", f"GEMM {n}, GPU") for n in (512, 1024, 2048, 4096)] \
  + [(f"GEMM {n}, CPU", f"GEMM {n}, GPU") for n in (512, 1024)] \
  + [(f"GEMM {n}, GPU", f"GEMM {n}, CPU") for n in (2048, 4096)] \
  + [(f"GEMM {n}, ANE", f"GEMM {n}, CPU") for n in (512, 1024, 2048, 4096)]

WORKLOADS = {
    "mobilenet": mobilenet_v1,
    "chain32": lambda: conv_chain(32),
    "chain64": lambda: conv_chain(64),
    "chain128": lambda: conv_chain(128),
    "llama": llama_layer,
    "tiny": tiny,
}
for n in (512, 1024, 2048, 4096):
    WORKLOADS[f"gemm{n}"] = (lambda n: lambda: gemm(n))(n)


def target_file(spec, calibrate, tmp):
    """'name' or 'name:threads=N' (a built-in target with its CPU threads
    changed, printed by hwagent-calibrate --print-target)."""
    if ":" not in spec:
        return spec
    name, override = spec.split(":", 1)
    key, value = override.split("=")
    path = os.path.join(tmp, f"{name}-{key}{value}.json")
    if not os.path.exists(path):
        text = subprocess.run([calibrate, "--print-target", name], check=True,
                              capture_output=True, text=True).stdout
        target = json.loads(text)
        target["name"] = f"{name}-{key}{value}"
        for b in target["backends"]:
            if b["backend"] == "cpu":
                b[key] = int(value)
        with open(path, "w") as f:
            json.dump(target, f)
    return path


def predict(opt, calibrate, tmp, workload, target, strategy, extra):
    """The predicted step time, or for per-program microbenchmarks (their
    operands already on the device, fp16 for the ANE) the programs' time
    without the host boundaries."""
    src = os.path.join(tmp, workload + ".mlir")
    if not os.path.exists(src):
        with open(src, "w") as f:
            f.write(WORKLOADS[workload]())
    report = os.path.join(tmp, "report.json")
    options = f"target={target_file(target, calibrate, tmp)} strategy={strategy} report={report} {extra}"
    subprocess.run([opt, src, f"--partition-backends={options}", "-o", os.devnull],
                   check=True, capture_output=True, text=True)
    with open(report) as f:
        fn = json.load(f)["functions"][0]
    if workload.startswith(("gemm", "chain")):
        return fn["program_time"]
    return fn["step_time"][strategy]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "hwagent-opt")
    calibrate = os.path.join(args.build, "bin", "hwagent-calibrate")
    predicted = {}
    in_band = 0
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for label, workload, target, strategy, extra, published, source in ROWS:
            p = predict(opt, calibrate, tmp, workload, target, strategy, extra)
            predicted[label] = p
            ratio = p / published
            ok = 0.7 <= ratio <= 1.4
            in_band += ok
            rows.append((label, target.replace(":", " "), p, published, ratio, ok, source))
    agree = 0
    comparisons = []
    for faster, slower in COMPARISONS:
        same = predicted[faster] < predicted[slower]
        agree += same
        comparisons.append((faster, slower, same))

    if args.markdown:
        print("| workload | target | predicted | published | ratio | in 0.7-1.4 | source (docs/ane-facts.md section: row) |")
        print("|---|---|---|---|---|---|---|")
        for label, target, p, pub, ratio, ok, source in rows:
            print(f"| {label} | {target} | {p * 1e3:.3f} ms | {pub * 1e3:.3f} ms | {ratio:.2f} | {'yes' if ok else '**no**'} | {source} |")
        print()
        print("| published: faster | than | predicted the same way round |")
        print("|---|---|---|")
        for faster, slower, same in comparisons:
            print(f"| {faster} | {slower} | {'yes' if same else '**no**'} |")
    else:
        print(f"{'workload':52} {'target':22} {'predicted':>11} {'published':>11} {'ratio':>6}")
        for label, target, p, pub, ratio, ok, source in rows:
            print(f"{label:52} {target:22} {p * 1e3:9.3f}ms {pub * 1e3:9.3f}ms {ratio:6.2f}{'' if ok else '  OUT OF BAND'}")
        print()
        for faster, slower, same in comparisons:
            print(f"{'ok   ' if same else 'WRONG'} {faster} < {slower}")
    print(f"\n{in_band}/{len(rows)} rows within 0.7-1.4x; {agree}/{len(comparisons)} comparisons the same way round")
    return 0


if __name__ == "__main__":
    sys.exit(main())
