"""The workloads behind docs/validation.md's rows, written as MLIR
(linalg on tensors, NCHW, f32 as torch-mlir exports them): whole CNNs,
convolution sweeps and chains, GEMMs, a LLaMA-shaped layer, a tiny model
and a Stories110M layer. Used by scripts/validate_device_model.py.
"""
import os
import sys

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
        return self._conv("linalg.conv_2d_nchw_fchw", "c", x, shape, cout,
                          lambda cin: [cout, cin, k, k], k, stride)

    def depthwise(self, x, shape, stride, k=3):
        return self._conv("linalg.depthwise_conv_2d_nchw_chw", "d", x, shape, shape[1],
                          lambda c: [c, k, k], k, stride)

    def _conv(self, op, prefix, x, shape, cout, weight_shape, k, stride):
        """A k x k convolution `op` padded to keep the map ("same"), output
        channels `cout`, the weight's shape from the input channels."""
        x, padded = self.pad(x, shape, k // 2)
        n, cin, h, w = padded
        oh, ow = (h - k) // stride + 1, (w - k) // stride + 1
        out = [n, cout, oh, ow]
        wshape = weight_shape(cin)
        wt = self.arg(tensor(wshape))
        z = self.zeros(out)
        r = self.fresh(prefix)
        self.emit(f"{r} = {op} {{dilations = dense<1> : tensor<2xi64>, "
                  f"strides = dense<{stride}> : tensor<2xi64>}} ins({x}, {wt} : "
                  f"{tensor(padded)}, {tensor(wshape)}) outs({z} : {tensor(out)}) "
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


def conv_stack(channels, batch, size, depth=1, k=3):
    """`depth` chained k x k convolutions (stride 1, same padding) of
    `channels` channels on a batch of size x size maps: depth 1 is the
    one-layer convolution of ANEForge's device_saturation_sweep; depth 20
    at 128 channels and 256 x 256 is freedomtan/measure_ane_capacity's
    measure_conv_fp16 chain."""
    b = Builder()
    s = [batch, channels, size, size]
    x = b.arg(tensor(s))
    for _ in range(depth):
        x, s = b.conv(x, s, channels, k, 1)
    return b.module(x, tensor(s))


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
    import gen_workloads  # noqa: E402 (scripts/ is not a package)
    return gen_workloads.transformer(dict(seq=256, dim=768, heads=12, ffn=2048, lr=1e-4))


WORKLOADS["stories_layer"] = stories_layer
# The classifier (vocabulary 32000) forward, its weight and input gradients.
STORIES_CLASSIFIER = [(256, 768, 32000), (768, 256, 32000), (256, 32000, 768)]
for m, k, n in STORIES_CLASSIFIER:
    WORKLOADS[f"gemm{m}x{k}x{n}"] = (lambda m, k, n: lambda: gemm(n, m, k))(m, k, n)
# One-layer 3x3 convolution sweeps (ANEForge device_saturation_sweep:
# channels, batch, 64 x 64 maps) and chains.
for c, batch in [(64, 16), (128, 16), (256, 8), (512, 4)]:
    WORKLOADS[f"conv3x3_c{c}_b{batch}"] = (lambda c, batch: lambda: conv_stack(c, batch, 64))(c, batch)
WORKLOADS["conv3x3_chain20_c128_256"] = lambda: conv_stack(128, 1, 256, depth=20)
