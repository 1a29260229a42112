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

Goal (issues 11, 23): every ratio within 0.7-1.4x and every comparison the same
way round. Power rows (issue 20): the backend's predicted watts while it runs
the workload (its programs' joules over their seconds: the time model and the
power model together) against docs/energy-facts.md, and the power model alone
at the published throughput. The table in docs/validation.md is this script's --markdown output.
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

    def depthwise(self, x, shape, stride, k=3):
        x, padded = self.pad(x, shape, k // 2)
        n, c, h, w = padded
        oh, ow = (h - k) // stride + 1, (w - k) // stride + 1
        out = [n, c, oh, ow]
        wt = self.arg(tensor([c, k, k]))
        z = self.zeros(out)
        r = self.fresh("d")
        self.emit(f"{r} = linalg.depthwise_conv_2d_nchw_chw {{dilations = dense<1> : tensor<2xi64>, "
                  f"strides = dense<{stride}> : tensor<2xi64>}} ins({x}, {wt} : "
                  f"{tensor(padded)}, {tensor([c, k, k])}) outs({z} : {tensor(out)}) "
                  f"-> {tensor(out)}")
        return r, out

    def scale(self, x, shape, s):
        """x * s broadcast over H and W (`s` is [N, C]): squeeze-excitation."""
        t = tensor(shape)
        e, r = self.fresh("e"), self.fresh("se")
        full = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
        nc = "affine_map<(d0, d1, d2, d3) -> (d0, d1)>"
        self.emit(f"{e} = tensor.empty() : {t}")
        self.emit(f"{r} = linalg.generic {{indexing_maps = [{full}, {nc}, {full}], iterator_types = "
                  f"[\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}} ins({x}, {s} : {t}, "
                  f"{tensor(shape[:2])}) outs({e} : {t}) {{\n"
                  f"  ^bb0(%in: f32, %sc: f32, %out: f32):\n    %m = arith.mulf %in, %sc : f32\n"
                  f"    linalg.yield %m : f32\n  }} -> {t}")
        return r

    def squeeze_excite(self, x, shape, squeezed):
        """Global pool, C -> squeezed -> C, a gate (ReLU stands in for the
        sigmoid: same cost class), the channels scaled."""
        c = shape[1]
        p = self.global_pool(x, shape)
        a = self.relu(self.matmul(p, 1, c, squeezed), [1, squeezed])
        g = self.relu(self.matmul(a, 1, squeezed, c), [1, c])
        return self.scale(x, shape, g)

    def concat(self, parts, shape):
        """Concatenation along channels (`parts`: (value, shape) pairs)."""
        e = self.fresh("e")
        self.emit(f"{e} = tensor.empty() : {tensor(shape)}")
        acc, offset = e, 0
        for value, part in parts:
            r = self.fresh("cat")
            sizes = ", ".join(map(str, part))
            self.emit(f"{r} = tensor.insert_slice {value} into {acc}[0, {offset}, 0, 0] [{sizes}] "
                      f"[1, 1, 1, 1] : {tensor(part)} into {tensor(shape)}")
            acc, offset = r, offset + part[1]
        return acc

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

    def add(self, x, y, shape):
        t = tensor(shape)
        e, r = self.fresh("e"), self.fresh("add")
        self.emit(f"{e} = tensor.empty() : {t}")
        self.emit(f"{r} = linalg.add ins({x}, {y} : {t}, {t}) outs({e} : {t}) -> {t}")
        return r

    def max_pool(self, x, shape):
        """3x3 max pooling, stride 2, padding 1."""
        x, padded = self.pad(x, shape, 1)
        n, c, h, w = padded
        out = [n, c, (h - 3) // 2 + 1, (w - 3) // 2 + 1]
        e, f, win, r = self.fresh("e"), self.fresh("f"), self.fresh("win"), self.fresh("mp")
        t = tensor(out)
        self.emit(f"{e} = tensor.empty() : {t}")
        self.emit(f"{f} = linalg.fill ins(%zero : f32) outs({e} : {t}) -> {t}")
        self.emit(f"{win} = tensor.empty() : tensor<3x3xf32>")
        self.emit(f"{r} = linalg.pooling_nchw_max {{dilations = dense<1> : tensor<2xi64>, "
                  f"strides = dense<2> : tensor<2xi64>}} ins({x}, {win} : {tensor(padded)}, "
                  f"tensor<3x3xf32>) outs({f} : {t}) -> {t}")
        return r, out

    def global_pool(self, x, shape):
        """Global average pooling as a reduction over H and W."""
        e = self.zeros(shape[:2])
        r = self.fresh("pool")
        self.emit(f"{r} = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, "
                  f"affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = [\"parallel\", \"parallel\", "
                  f"\"reduction\", \"reduction\"]}} ins({x} : {tensor(shape)}) outs({e} : {tensor(shape[:2])}) {{\n"
                  f"  ^bb0(%in: f32, %out: f32):\n    %a = arith.addf %in, %out : f32\n    linalg.yield %a : f32\n"
                  f"  }} -> {tensor(shape[:2])}")
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
    r = b.global_pool(x, s)
    y = b.matmul(r, 1, 1024, 1000)
    return b.module(y, tensor([1, 1000]))


def mobilenet_v2():
    """MobileNetV2-224 (width 1.0), batch 1: 300 M multiply-adds; inverted
    residual blocks (1x1 expansion x6, 3x3 depthwise, 1x1 projection, a
    residual add where shapes match). ReLU stands in for ReLU6 (same cost
    class)."""
    b = Builder()
    x = b.arg(tensor([1, 3, 224, 224]))
    x, s = b.conv(x, [1, 3, 224, 224], 32, 3, 2)
    x = b.relu(x, s)
    for t, c, n, stride in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                            (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            inp, ins = x, s
            if t != 1:
                x, s = b.conv(x, s, s[1] * t, 1, 1)
                x = b.relu(x, s)
            x, s = b.depthwise(x, s, stride if i == 0 else 1)
            x = b.relu(x, s)
            x, s = b.conv(x, s, c, 1, 1)
            if s == ins:
                x = b.add(x, inp, s)
    x, s = b.conv(x, s, 1280, 1, 1)
    x = b.relu(x, s)
    r = b.global_pool(x, s)
    y = b.matmul(r, 1, s[1], 1000)
    return b.module(y, tensor([1, 1000]))


def resnet18():
    """ResNet-18-224, batch 1: 1.8 G multiply-adds; 7x7 stem, 3x3 max pool,
    eight basic blocks (1x1 projection shortcuts where the shape changes)."""
    b = Builder()
    x = b.arg(tensor([1, 3, 224, 224]))
    x, s = b.conv(x, [1, 3, 224, 224], 64, 7, 2)
    x = b.relu(x, s)
    x, s = b.max_pool(x, s)
    for cout, stride in [(64, 1), (64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2), (512, 1)]:
        inp, ins = x, s
        y, ys = b.conv(x, s, cout, 3, stride)
        y = b.relu(y, ys)
        y, ys = b.conv(y, ys, cout, 3, 1)
        if ys != ins:
            inp, _ = b.conv(inp, ins, cout, 1, stride)
        x, s = b.add(y, inp, ys), ys
        x = b.relu(x, s)
    r = b.global_pool(x, s)
    y = b.matmul(r, 1, s[1], 1000)
    return b.module(y, tensor([1, 1000]))


def resnet50():
    """ResNet-50-224, batch 1: 4.1 G multiply-adds; bottleneck blocks
    (1x1, 3x3, 1x1 x4), projection shortcuts where the shape changes."""
    b = Builder()
    x = b.arg(tensor([1, 3, 224, 224]))
    x, s = b.conv(x, [1, 3, 224, 224], 64, 7, 2)
    x = b.relu(x, s)
    x, s = b.max_pool(x, s)
    for width, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for i in range(blocks):
            st = stride if i == 0 else 1
            inp, ins = x, s
            y, ys = b.conv(x, s, width, 1, 1)
            y = b.relu(y, ys)
            y, ys = b.conv(y, ys, width, 3, st)
            y = b.relu(y, ys)
            y, ys = b.conv(y, ys, width * 4, 1, 1)
            if ys != ins:
                inp, _ = b.conv(inp, ins, width * 4, 1, st)
            x, s = b.relu(b.add(y, inp, ys), ys), ys
    r = b.global_pool(x, s)
    y = b.matmul(r, 1, s[1], 1000)
    return b.module(y, tensor([1, 1000]))


def squeezenet():
    """SqueezeNet 1.1-224, batch 1: 0.35 G multiply-adds; fire modules
    (1x1 squeeze, 1x1 and 3x3 expand, concatenated)."""
    b = Builder()
    x = b.arg(tensor([1, 3, 224, 224]))
    x, s = b.conv(x, [1, 3, 224, 224], 64, 3, 2)
    x = b.relu(x, s)
    x, s = b.max_pool(x, s)
    fires = [(16, 64), (16, 64), "pool", (32, 128), (32, 128), "pool",
             (48, 192), (48, 192), (64, 256), (64, 256)]
    for fire in fires:
        if fire == "pool":
            x, s = b.max_pool(x, s)
            continue
        squeeze, expand = fire
        q, qs = b.conv(x, s, squeeze, 1, 1)
        q = b.relu(q, qs)
        e1, es = b.conv(q, qs, expand, 1, 1)
        e1 = b.relu(e1, es)
        e3, _ = b.conv(q, qs, expand, 3, 1)
        e3 = b.relu(e3, es)
        s = [es[0], 2 * expand, es[2], es[3]]
        x = b.concat([(e1, es), (e3, es)], s)
    x, s = b.conv(x, s, 1000, 1, 1)
    x = b.relu(x, s)
    r = b.global_pool(x, s)
    return b.module(r, tensor([1, 1000]))


def mobile_blocks(b, x, s, blocks):
    """Inverted residual blocks: (kernel, expanded, out, squeeze-excite,
    stride); hardswish/swish stand in as ReLU (same cost class)."""
    for k, expanded, cout, se, stride in blocks:
        inp, ins = x, s
        if expanded != s[1]:
            x, s = b.conv(x, s, expanded, 1, 1)
            x = b.relu(x, s)
        x, s = b.depthwise(x, s, stride, k)
        x = b.relu(x, s)
        if se:
            x = b.squeeze_excite(x, s, max(8, expanded // 4))
        x, s = b.conv(x, s, cout, 1, 1)
        if s == ins:
            x = b.add(x, inp, s)
    return x, s


def mobilenet_v3_small():
    """MobileNetV3-Small-224, batch 1: 56 M multiply-adds."""
    b = Builder()
    x = b.arg(tensor([1, 3, 224, 224]))
    x, s = b.conv(x, [1, 3, 224, 224], 16, 3, 2)
    x = b.relu(x, s)
    x, s = mobile_blocks(b, x, s, [
        (3, 16, 16, True, 2), (3, 72, 24, False, 2), (3, 88, 24, False, 1),
        (5, 96, 40, True, 2), (5, 240, 40, True, 1), (5, 240, 40, True, 1),
        (5, 120, 48, True, 1), (5, 144, 48, True, 1), (5, 288, 96, True, 2),
        (5, 576, 96, True, 1), (5, 576, 96, True, 1)])
    x, s = b.conv(x, s, 576, 1, 1)
    x = b.relu(x, s)
    r = b.global_pool(x, s)
    h = b.relu(b.matmul(r, 1, 576, 1024), [1, 1024])
    y = b.matmul(h, 1, 1024, 1000)
    return b.module(y, tensor([1, 1000]))


def efficientnet_b0():
    """EfficientNet-B0-224, batch 1: 0.39 G multiply-adds; MBConv blocks
    with squeeze-excitation."""
    b = Builder()
    x = b.arg(tensor([1, 3, 224, 224]))
    x, s = b.conv(x, [1, 3, 224, 224], 32, 3, 2)
    x = b.relu(x, s)
    blocks = []
    cin = 32
    for t, k, cout, n, stride in [(1, 3, 16, 1, 1), (6, 3, 24, 2, 2), (6, 5, 40, 2, 2),
                                  (6, 3, 80, 3, 2), (6, 5, 112, 3, 1), (6, 5, 192, 4, 2),
                                  (6, 3, 320, 1, 1)]:
        for i in range(n):
            blocks.append((k, cin * t, cout, True, stride if i == 0 else 1))
            cin = cout
    x, s = mobile_blocks(b, x, s, blocks)
    x, s = b.conv(x, s, 1280, 1, 1)
    x = b.relu(x, s)
    r = b.global_pool(x, s)
    y = b.matmul(r, 1, 1280, 1000)
    return b.module(y, tensor([1, 1000]))


def conv_chain(depth):
    """`depth` chained 1x1 convolutions, 512 channels, 64 positions."""
    b = Builder()
    s = [1, 512, 1, 64]
    x = b.arg(tensor(s))
    for _ in range(depth):
        x, s = b.conv(x, s, 512, 1, 1)
    return b.module(x, tensor(s))


def gemm(n, m=None, k=None):
    """An m x k by k x n GEMM (square n x n by default)."""
    m, k = m or n, k or n
    b = Builder()
    a = b.arg(tensor([m, k]))
    y = b.matmul(a, m, k, n)
    return b.module(y, tensor([m, n]))


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
    ("MobileNetV1-224, CPU 1 thread", "mobilenet", "apple-m1:cpu.threads=1", "cpu", "", 18.8 * MS, "1: TF PR #47639"),
    ("MobileNetV2-224, ANE (A14: M1's ANE, half its memory bus)", "mobilenetv2",
     "apple-m1:ane.bandwidth=3.05e10", "ane", "", 1.73 * MS, "5: EfficientFormer #9"),
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
# The same tool on the M4 Max (ENERGY-FACTS.md: its throughput column).
for n, ane, gpu in [(1024, 5.79, 1.96), (2048, 8.87, 10.6), (4096, 6.68, 11.8)]:
    ROWS += [
        (f"GEMM {n}, ANE, M4 Max", f"gemm{n}", "apple-m4-max", "ane", "", gemm_seconds(n, ane),
         "ENERGY-FACTS: ANEForge M4 Max roofline"),
        (f"GEMM {n}, GPU, M4 Max", f"gemm{n}", "apple-m4-max", "gpu", "", gemm_seconds(n, gpu),
         "ENERGY-FACTS: ANEForge M4 Max roofline"),
    ]
ROWS += [
    ("LLaMA-7B layer fwd seq 512, weights as inputs, ANE", "llama", "apple-m4-max", "ane",
     "weights-as-inputs=true", 3.13 / 32, "2: rustane README"),
    ("tiny model, ANE (launch floor)", "tiny", "apple-m4", "ane", "", 0.10 * MS, "1: maderix part 2"),
    ("Stories110M training step, static pipeline, ANE + CPU", "stories110m", "apple-m4", "optimal", "",
     106.7 * MS, "maderix/ANE training/README.md: train_large 106.7 ms/step (M4)"),
    ("tiny model, ANE (launch floor)", "tiny", "apple-m1", "ane", "", 0.21 * MS, "1: ANEForge / ane-guide"),
]

# Published orderings: (faster row label, slower row label)
COMPARISONS = [
    ("MobileNetV1-224, ANE", "MobileNetV1-224, GPU"),
    # Published on two devices of one ANE generation (M1 and A14): half the
    # FLOPs, yet slower.
    ("MobileNetV1-224, ANE", "MobileNetV2-224, ANE (A14: M1's ANE, half its memory bus)"),
    ("MobileNetV1-224, GPU", "MobileNetV1-224, CPU 4 threads"),
    ("MobileNetV1-224, CPU 4 threads", "MobileNetV1-224, CPU 1 thread"),
] + [(f"GEMM {n}, ANE", f"GEMM {n}, GPU") for n in (512, 1024, 2048, 4096)] \
  + [(f"GEMM {n}, CPU", f"GEMM {n}, GPU") for n in (512, 1024)] \
  + [(f"GEMM {n}, GPU", f"GEMM {n}, CPU") for n in (2048, 4096)] \
  + [(f"GEMM {n}, ANE", f"GEMM {n}, CPU") for n in (512, 1024, 2048, 4096)] \
  + [("GEMM 1024, ANE, M4 Max", "GEMM 1024, GPU, M4 Max")] \
  + [(f"GEMM {n}, GPU, M4 Max", f"GEMM {n}, ANE, M4 Max") for n in (2048, 4096)]

# Published power (docs/energy-facts.md): (label, workload, target, strategy,
# published watts of the backend while it runs the workload, source row).
# Throughput the power rows were measured at (TFLOP/s), to price the power
# model alone at the published rate.
MEASURED_RATE = {}
for n, ane, gpu in [(512, 1.29, 0.26), (1024, 2.88, 1.34), (2048, 4.89, 2.69), (4096, 5.44, 2.80)]:
    MEASURED_RATE[(f"gemm{n}", "apple-m4", "ane")] = ane
    MEASURED_RATE[(f"gemm{n}", "apple-m4", "gpu")] = gpu
for n, ane, gpu in [(512, 1.93, None), (1024, 5.79, 1.96), (2048, 8.87, 10.6), (4096, 6.68, 11.8)]:
    MEASURED_RATE[(f"gemm{n}", "apple-m4-max", "ane")] = ane
    MEASURED_RATE[(f"gemm{n}", "apple-m4-max", "gpu")] = gpu
for n, ane in [(512, 0.46), (1024, 1.08), (2048, 2.30), (4096, 3.36)]:
    MEASURED_RATE[(f"gemm{n}", "apple-m2-pro", "ane")] = ane
MEASURED_RATE.update({("gemm2048", "apple-m2-pro", "gpu"): 4.63, ("gemm4096", "apple-m2-pro", "gpu"): 5.02,
                      ("gemm256x4096", "apple-m1", "ane"): 3.59,
                      ("gemm2048", "apple-m4", "cpu"): 1.44, ("gemm2048", "apple-m4-max", "cpu"): 2.0})
ENERGY_ROWS = []
for n, ane, gpu in [(512, 1.49, 5.97), (1024, 2.39, 11.8), (2048, 3.20, 16.4), (4096, 3.64, 17.6)]:
    ENERGY_ROWS += [
        (f"GEMM {n}, ANE power", f"gemm{n}", "apple-m4", "ane", ane, "1: ANEForge M4 roofline"),
        (f"GEMM {n}, GPU power", f"gemm{n}", "apple-m4", "gpu", gpu, "2: ANEForge M4 roofline"),
    ]
ENERGY_ROWS += [("GEMM 2048, CPU power (8.3-9.2 W over N)", "gemm2048", "apple-m4", "cpu", 8.75,
                 "3: ANEForge M4 roofline")]
for n, ane, gpu in [(512, 2.19, None), (1024, 4.15, 24.2), (2048, 6.01, 41.3), (4096, 5.22, 44.3)]:
    ENERGY_ROWS.append((f"GEMM {n}, ANE power", f"gemm{n}", "apple-m4-max", "ane", ane,
                        "1: ANEForge M4 Max roofline"))
    if gpu:
        ENERGY_ROWS.append((f"GEMM {n}, GPU power", f"gemm{n}", "apple-m4-max", "gpu", gpu,
                            "2: ANEForge M4 Max roofline"))
ENERGY_ROWS += [("GEMM 2048, CPU power (6.6-8.2 W over N)", "gemm2048", "apple-m4-max", "cpu", 7.4,
                 "3: ANEForge M4 Max roofline")]
for n, ane in [(512, 1.73), (1024, 1.89), (2048, 1.67), (4096, 2.61)]:
    ENERGY_ROWS.append((f"GEMM {n}, ANE power", f"gemm{n}", "apple-m2-pro", "ane", ane,
                        "1: ANEForge M2 Pro roofline (indicative)"))
ENERGY_ROWS += [
    ("GEMM 2048, GPU power", "gemm2048", "apple-m2-pro", "gpu", 23.0, "2: ANEForge M2 Pro roofline"),
    ("GEMM 4096, GPU power", "gemm4096", "apple-m2-pro", "gpu", 24.5, "2: ANEForge M2 Pro roofline"),
    ("GEMM 256x4096x4096, ANE power", "gemm256x4096", "apple-m1", "ane", 3.11, "1: ANEForge M1 file"),
    ("tiny model, ANE power (dispatch floor)", "tiny", "apple-m1", "ane", 0.83,
     "1: ane-guide ch.10 (0.76-0.9 W)"),
]

WORKLOADS = {
    "mobilenet": mobilenet_v1,
    "mobilenetv2": mobilenet_v2,
    "resnet18": resnet18,
    "resnet50": resnet50,
    "squeezenet": squeezenet,
    "mobilenetv3small": mobilenet_v3_small,
    "efficientnetb0": efficientnet_b0,
    "chain32": lambda: conv_chain(32),
    "chain64": lambda: conv_chain(64),
    "chain128": lambda: conv_chain(128),
    "llama": llama_layer,
    "tiny": tiny,
}
for n in (512, 1024, 2048, 4096):
    WORKLOADS[f"gemm{n}"] = (lambda n: lambda: gemm(n))(n)
WORKLOADS["gemm256x4096"] = lambda: gemm(4096, 256, 4096)


def stories_layer():
    """One layer of Stories110M (dim 768, 12 heads, SwiGLU FFN 2048, sequence
    256) as scripts/gen_workloads.py's transformer training step writes it:
    forward, the weight gradients and the gradients inside the layer (it
    omits the RMSNorms and the input gradient through q/k/v, 0.9 of the
    layer's ~11 GFLOP)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gen_workloads
    return gen_workloads.transformer(dict(seq=256, dim=768, heads=12, ffn=2048, lr=1e-4))


WORKLOADS["stories_layer"] = stories_layer
# The classifier (vocabulary 32000) forward, its weight and input gradients.
STORIES_CLASSIFIER = [(256, 768, 32000), (768, 256, 32000), (256, 32000, 768)]
for m, k, n in STORIES_CLASSIFIER:
    WORKLOADS[f"gemm{m}x{k}x{n}"] = (lambda m, k, n: lambda: gemm(n, m, k))(m, k, n)


def target_file(spec, calibrate, tmp):
    """'name' or 'name:backend.key=value,...' (a built-in target, printed by
    hwagent-calibrate --print-target, with backend values changed: e.g.
    'apple-m1:cpu.threads=1')."""
    if ":" not in spec:
        return spec
    name, overrides = spec.split(":", 1)
    path = os.path.join(tmp, name + "-" + overrides.replace("=", "").replace(",", "-") + ".json")
    if not os.path.exists(path):
        text = subprocess.run([calibrate, "--print-target", name], check=True,
                              capture_output=True, text=True).stdout
        target = json.loads(text)
        target["name"] = os.path.basename(path)[:-5]
        for override in overrides.split(","):
            key, value = override.split("=")
            backend, field = key.split(".")
            for b in target["backends"]:
                if b["backend"] == backend:
                    b[field] = json.loads(value)
        with open(path, "w") as f:
            json.dump(target, f)
    return path


def partition(opt, calibrate, tmp, workload, options):
    """Partitions `workload` (written once into `tmp`) with the
    partition-backends `options` (a 'target=name:overrides' is resolved to
    a file) and returns its function's report."""
    src = os.path.join(tmp, workload + ".mlir")
    if not os.path.exists(src):
        with open(src, "w") as f:
            f.write(WORKLOADS[workload]())
    report = os.path.join(tmp, "report.json")
    subprocess.run([opt, src, f"--partition-backends={options} report={report}",
                    "-o", os.devnull], check=True, capture_output=True, text=True)
    with open(report) as f:
        return json.load(f)["functions"][0]


def target_value(calibrate, target, backend, key):
    """A value of a built-in target as hwagent-calibrate prints it."""
    if target not in _PRINTED_TARGETS:
        _PRINTED_TARGETS[target] = json.loads(subprocess.run(
            [calibrate, "--print-target", target], check=True,
            capture_output=True, text=True).stdout)
    for b in _PRINTED_TARGETS[target]["backends"]:
        if b["backend"] == backend:
            return b[key]
    return None


def stories_step(opt, calibrate, tmp, target, extra):
    """A Stories110M training step as the static pipeline runs it (maderix
    train_large): 12 layers partitioned over the CPU and the ANE with the
    weights baked into the ANE programs and taken anew once per 10-step
    update; the classifier's three GEMMs and Adam (7 passes over the 109.5M
    f32 parameters, once per update) on the CPU."""
    spec = target_file(target, calibrate, tmp)
    layer = partition(opt, calibrate, tmp, "stories_layer",
                      f"target={spec} strategy=optimal backends=cpu,ane "
                      f"training=true update-every=10 {extra}")
    seconds = 12 * layer["step_time"]["optimal"]
    for m, k, n in STORIES_CLASSIFIER:
        seconds += predict(opt, calibrate, tmp, f"gemm{m}x{k}x{n}", target, "cpu", "")
    bandwidth = target_value(calibrate, target.split(":")[0], "cpu", "bandwidth")
    return seconds + 7 * 4 * 109.53e6 / bandwidth / 10


def predict(opt, calibrate, tmp, workload, target, strategy, extra):
    """The predicted step time, or for per-program microbenchmarks (their
    operands already on the device, fp16 for the ANE) the programs' time
    without the host boundaries."""
    if workload == "stories110m":
        return stories_step(opt, calibrate, tmp, target, extra)
    fn = partition(opt, calibrate, tmp, workload,
                   f"target={target_file(target, calibrate, tmp)} strategy={strategy} {extra}")
    if workload.startswith(("gemm", "chain")):
        return fn["program_time"]
    return fn["step_time"][strategy]


ROUTING_WORKLOADS = [("MobileNetV1-224", "mobilenet"), ("MobileNetV2-224", "mobilenetv2"),
                     ("MobileNetV3-Small-224", "mobilenetv3small"), ("ResNet-18-224", "resnet18"),
                     ("ResNet-50-224", "resnet50"), ("SqueezeNet-1.1-224", "squeezenet"),
                     ("EfficientNet-B0-224", "efficientnetb0")]
ROUTING_TARGETS = ["apple-m1", "apple-m2-pro", "apple-m4", "apple-m4-max"]


def routing(opt, calibrate, tmp):
    """Where the optimal placement puts each whole CNN (inference, batch 1)
    on every built-in Apple target, and the step time per strategy."""
    rows = []
    for label, workload in ROUTING_WORKLOADS:
        for target in ROUTING_TARGETS:
            fn = partition(opt, calibrate, tmp, workload, f"target={target}")
            counts = {}
            for region in fn["regions"]:
                counts[region["backend"]] = counts.get(region["backend"], 0) + 1
            placement = ", ".join(f"{n} on {b}" for b, n in sorted(counts.items(), key=lambda kv: -kv[1]))
            times = fn["step_time"]
            rows.append((label, target, placement, len(fn["programs"]),
                         times["optimal"], times["cpu"], times["ane"], times["gpu"]))
    return rows


def predict_power(opt, calibrate, tmp, workload, target, strategy):
    """Watts of `strategy`'s backend while it runs the workload: its
    programs' joules (the host's share excluded, as powermetrics reports the
    unit alone) over their seconds."""
    fn = partition(opt, calibrate, tmp, workload,
                   f"target={target_file(target, calibrate, tmp)} strategy={strategy}")
    on = [p for p in fn["programs"] if p["backend"] == strategy]
    return sum(p["joules"] for p in on) / sum(p["seconds"] for p in on)


_PRINTED_TARGETS = {}


def power_at(calibrate, target, strategy, tflops):
    """The power model alone: the backend's active power plus its energy per
    FLOP at the published throughput (None without one)."""
    if tflops is None:
        return None
    active = target_value(calibrate, target, strategy, "active_power")
    if active is None:
        return None
    return active + target_value(calibrate, target, strategy, "energy_per_flop") * tflops * 1e12


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--routing", action="store_true",
                        help="print where whole CNNs go on every target instead")
    args = parser.parse_args()
    opt = os.path.join(args.build, "bin", "hwagent-opt")
    calibrate = os.path.join(args.build, "bin", "hwagent-calibrate")
    if args.routing:
        with tempfile.TemporaryDirectory() as tmp:
            print("| network | target | optimal placement | programs | optimal | cpu | ane | gpu |")
            print("|---|---|---|---|---|---|---|---|")
            for label, target, placement, programs, *times in routing(opt, calibrate, tmp):
                cells = " | ".join(f"{t * 1e3:.3f} ms" for t in times)
                print(f"| {label} | {target} | {placement} | {programs} | {cells} |")
        print("\nAll ANE and GPU times are predictions of the simulated device model.")
        return 0
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
    energy_rows = []
    energy_in_band = 0
    with tempfile.TemporaryDirectory() as tmp:
        for label, workload, target, strategy, published, source in ENERGY_ROWS:
            p = predict_power(opt, calibrate, tmp, workload, target, strategy)
            alone = power_at(calibrate, target, strategy,
                             MEASURED_RATE.get((workload, target, strategy)))
            ratio = p / published
            ok = 0.7 <= ratio <= 1.4
            energy_in_band += ok
            energy_rows.append((label, target, p, published, ratio, ok, source, alone))
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
    if args.markdown:
        print()
        print("| power row | target | predicted | published | ratio | in 0.7-1.4 | at the published rate | source (docs/energy-facts.md section: row) |")
        print("|---|---|---|---|---|---|---|---|")
        for label, target, p, pub, ratio, ok, source, alone in energy_rows:
            at = f"{alone:.2f} W ({alone / pub:.2f})" if alone is not None else "-"
            print(f"| {label} | {target} | {p:.2f} W | {pub:.2f} W | {ratio:.2f} | {'yes' if ok else '**no**'} | {at} | {source} |")
    else:
        print()
        print(f"{'power row':52} {'target':22} {'predicted':>10} {'published':>10} {'ratio':>6} {'at the published rate':>22}")
        for label, target, p, pub, ratio, ok, source, alone in energy_rows:
            at = f"{alone:8.2f} W ({alone / pub:.2f})" if alone is not None else ""
            print(f"{label:52} {target:22} {p:8.2f} W {pub:8.2f} W {ratio:6.2f} {at:>22}{'' if ok else '  OUT OF BAND'}")
    print(f"\n{in_band}/{len(rows)} rows within 0.7-1.4x; {agree}/{len(comparisons)} comparisons the same way round; "
          f"{energy_in_band}/{len(energy_rows)} power rows within 0.7-1.4x (modelled)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
