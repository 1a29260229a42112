"""Pooling, forward and backward (NCHW).

Max pooling returns PyTorch's indices (h * W + w within the input plane,
the first maximum in window order, NaN winning) from one generic with two
results. The backward passes scatter each output's gradient into its
window; with K x K windows that is K*K strided slice updates (each a
parallel generic), and one gather-form generic when windows do not overlap.
"""

from __future__ import annotations

import torch

from ..mlir import OutputSpec, Value
from . import Context, aten, lowers
from .elementwise import map_elementwise



def _pair(v, default=None):
    if v is None or (isinstance(v, (list, tuple)) and len(v) == 0):
        return list(default)
    if isinstance(v, int):
        return [v, v]
    v = list(v)
    return v * 2 if len(v) == 1 else v


def _out_size(size, k, s, p, d, ceil):
    span = size + 2 * p - d * (k - 1) - 1
    if ceil:
        o = -(-span // s) + 1
        if (o - 1) * s >= size + p:
            o -= 1
    else:
        o = span // s + 1
    return o


def _padded(ctx, x: Value, k, s, p, d, out, value) -> Value:
    """x padded so every window of the `out` outputs is in range."""
    high = []
    for i in range(2):
        need = (out[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1
        high.append(max(need - x.shape[2 + i] - p[i], 0))
    return ctx.fn.pad(x, [0, 0, p[0], p[1]], [0, 0, high[0], high[1]], value)


def _window_exprs(s, d):
    def e(o, k, si, di):
        parts = [f"{o} * {si}" if si != 1 else o, f"{k} * {di}" if di != 1 else k]
        return " + ".join(parts)
    return ["d0", "d1", e("d2", "d4", s[0], d[0]), e("d3", "d5", s[1], d[1])]


@lowers(aten.max_pool2d_with_indices.default)
def _max_pool(ctx: Context, node, x, kernel, stride=(), padding=0, dilation=1, ceil_mode=False):
    k = _pair(kernel)
    s = _pair(stride, k)
    p = _pair(padding)
    d = _pair(dilation)
    squeeze = x.rank == 3
    if squeeze:
        x = ctx.fn.reshape(x, (1,) + x.shape)
    n, c, h, w = x.shape
    oh, ow = (_out_size(h, k[0], s[0], p[0], d[0], ceil_mode),
              _out_size(w, k[1], s[1], p[1], d[1], ceil_mode))
    xp = _padded(ctx, x, k, s, p, d, (oh, ow), float("-inf"))
    t = x.dtype
    outs = [OutputSpec((n, c, oh, ow), t, ["d0", "d1", "d2", "d3"], fill=float("-inf")),
            OutputSpec((n, c, oh, ow), "i64", ["d0", "d1", "d2", "d3"], fill=0)]

    def body(b, a):
        v, best, idx = a
        better = b.logical("ori", b.cmp("gt", v, best, t), b.isnan(v, t))
        hh = _coord(b, 2, 4, s[0], d[0], p[0])
        ww = _coord(b, 3, 5, s[1], d[1], p[1])
        flat = b.add(b.mul(hh, b.const(w, "i64"), "i64"), ww, "i64")
        return [b.select(better, v, best, t), b.select(better, flat, idx, "i64")]

    vals, inds = ctx.fn.generic(6, ["parallel"] * 4 + ["reduction"] * 2,
                                [(xp, _window_exprs(s, d)), _window(ctx, k)], outs,
                                lambda b, a: body(b, [a[0]] + a[2:]), "maxpool")
    if squeeze:
        vals = ctx.fn.reshape(vals, vals.shape[1:])
        inds = ctx.fn.reshape(inds, inds.shape[1:])
    return vals, inds


def _window(ctx, k) -> tuple[Value, list[str]]:
    """The (KH, KW) shape operand linalg's pooling ops carry so the window
    loops (d4, d5) have a range: its values are never read."""
    return ctx.fn.empty(tuple(k), "f32"), ["d4", "d5"]


def _coord(b, out_dim, k_dim, s, d, p):
    """The input row (or column) of loop indices (o, k): o*s + k*d - p."""
    o = b.index_cast(b.index(out_dim), "i64")
    k = b.index_cast(b.index(k_dim), "i64")
    r = b.add(b.mul(o, b.const(s, "i64"), "i64"), b.mul(k, b.const(d, "i64"), "i64"), "i64")
    return b.sub(r, b.const(p, "i64"), "i64")


def _scatter_windows(ctx: Context, xshape, k, s, p, d, out_hw, contribution) -> Value:
    """Sum over windows: for each window offset (kh, kw), add
    contribution(kh, kw) (an (N, C, OH, OW) value) at input rows
    o*s + kh*d - p. Returns the (N, C, H, W) sum."""
    n, c, h, w = xshape
    oh, ow = out_hw
    hp = max(h + 2 * p[0], (oh - 1) * s[0] + d[0] * (k[0] - 1) + 1)
    wp = max(w + 2 * p[1], (ow - 1) * s[1] + d[1] * (k[1] - 1) + 1)
    t = ctx.out_dtype
    acc = ctx.fn.full((n, c, hp, wp), t, 0)
    for kh in range(k[0]):
        for kw in range(k[1]):
            contrib = contribution(kh, kw)
            offs = [0, 0, kh * d[0], kw * d[1]]
            sizes = [n, c, oh, ow]
            strides = [1, 1, s[0], s[1]]
            cur = ctx.fn.extract_slice(acc, offs, sizes, strides)
            upd = map_elementwise(ctx, [cur, contrib], cur.shape, t,
                                  lambda b, a: [b.add(a[0], a[1], t)], "acc")
            acc = ctx.fn.insert_slice(upd, acc, offs, sizes, strides)
    return ctx.fn.extract_slice(acc, [0, 0, p[0], p[1]], [n, c, h, w], [1, 1, 1, 1])


@lowers(aten.max_pool2d_with_indices_backward.default)
def _max_pool_backward(ctx: Context, node, dy, x, kernel, stride, padding, dilation, ceil_mode,
                       indices):
    k = _pair(kernel)
    s = _pair(stride, k)
    p = _pair(padding)
    d = _pair(dilation)
    squeeze = x.rank == 3
    if squeeze:
        x = ctx.fn.reshape(x, (1,) + x.shape)
        dy = ctx.fn.reshape(dy, (1,) + dy.shape)
        indices = ctx.fn.reshape(indices, (1,) + indices.shape)
    n, c, h, w = x.shape
    oh, ow = dy.shape[2], dy.shape[3]
    t = dy.dtype
    if s == k and d == [1, 1] and p == [0, 0] and oh * k[0] == h and ow * k[1] == w:
        # Windows tile the input: one gather per input element.
        def body(b, a):
            hh = b.index_cast(b.index(2), "i64")
            ww = b.index_cast(b.index(3), "i64")
            flat = b.add(b.mul(hh, b.const(w, "i64"), "i64"), ww, "i64")
            hit = b.cmp("eq", a[1], flat, "i64")
            return [b.select(hit, a[0], b.const(0, t), t)]
        exprs = ["d0", "d1", f"d2 floordiv {k[0]}", f"d3 floordiv {k[1]}"]
        out = OutputSpec((n, c, h, w), t, ["d0", "d1", "d2", "d3"])
        r = ctx.fn.generic(4, ["parallel"] * 4, [(dy, exprs), (indices, exprs)], [out], body,
                           "maxpoolgrad")[0]
    else:
        def contribution(kh, kw):
            def body(b, a):
                o_h = b.index_cast(b.index(2), "i64")
                o_w = b.index_cast(b.index(3), "i64")
                hh = b.sub(b.add(b.mul(o_h, b.const(s[0], "i64"), "i64"),
                                 b.const(kh * d[0], "i64"), "i64"), b.const(p[0], "i64"), "i64")
                ww = b.sub(b.add(b.mul(o_w, b.const(s[1], "i64"), "i64"),
                                 b.const(kw * d[1], "i64"), "i64"), b.const(p[1], "i64"), "i64")
                flat = b.add(b.mul(hh, b.const(w, "i64"), "i64"), ww, "i64")
                hit = b.cmp("eq", a[1], flat, "i64")
                return [b.select(hit, a[0], b.const(0, t), t)]
            return map_elementwise(ctx, [dy, indices], dy.shape, t, body, "mpg")
        r = _scatter_windows(ctx, (n, c, h, w), k, s, p, d, (oh, ow), contribution)
    if squeeze:
        r = ctx.fn.reshape(r, r.shape[1:])
    return r


def _avg_divisor(b, k, s, p, h, w, count_include_pad, divisor_override):
    """ATen's avg_pool2d divide factor for output (d2, d3), as f64."""
    if divisor_override:
        return b.const(divisor_override, "i64")
    def span(o_dim, size, ki, si, pi):
        o = b.index_cast(b.index(o_dim), "i64")
        start = b.sub(b.mul(o, b.const(si, "i64"), "i64"), b.const(pi, "i64"), "i64")
        end = b.minimum(b.add(start, b.const(ki, "i64"), "i64"), b.const(size + pi, "i64"), "i64")
        pool = b.sub(end, start, "i64")
        start_c = b.maximum(start, b.const(0, "i64"), "i64")
        end_c = b.minimum(end, b.const(size, "i64"), "i64")
        return pool, b.sub(end_c, start_c, "i64")
    ph, ch = span(2, h, k[0], s[0], p[0])
    pw, cw = span(3, w, k[1], s[1], p[1])
    if count_include_pad:
        return b.mul(ph, pw, "i64")
    return b.mul(ch, cw, "i64")


@lowers(aten.avg_pool2d.default)
def _avg_pool(ctx: Context, node, x, kernel, stride=(), padding=0, ceil_mode=False,
              count_include_pad=True, divisor_override=None):
    k = _pair(kernel)
    s = _pair(stride, k)
    p = _pair(padding)
    d = [1, 1]
    squeeze = x.rank == 3
    if squeeze:
        x = ctx.fn.reshape(x, (1,) + x.shape)
    n, c, h, w = x.shape
    oh, ow = (_out_size(h, k[0], s[0], p[0], 1, ceil_mode),
              _out_size(w, k[1], s[1], p[1], 1, ceil_mode))
    t = x.dtype
    xp = _padded(ctx, x, k, s, p, d, (oh, ow), 0)
    out = OutputSpec((n, c, oh, ow), t, ["d0", "d1", "d2", "d3"], fill=0)
    total = ctx.fn.generic(6, ["parallel"] * 4 + ["reduction"] * 2,
                           [(xp, _window_exprs(s, d)), _window(ctx, k)],
                           [out], lambda b, a: [b.add(a[2], a[0], t)], "avgsum")[0]

    def divide(b, a):
        div = _avg_divisor(b, k, s, p, h, w, count_include_pad, divisor_override)
        return [b.div(a[0], b.cast(div, "i64", t), t)]
    r = map_elementwise(ctx, [total], total.shape, t, divide, "avg")
    if squeeze:
        r = ctx.fn.reshape(r, r.shape[1:])
    return r


@lowers(aten.avg_pool2d_backward.default)
def _avg_pool_backward(ctx: Context, node, dy, x, kernel, stride, padding, ceil_mode,
                       count_include_pad, divisor_override):
    k = _pair(kernel)
    s = _pair(stride, k)
    p = _pair(padding)
    squeeze = x.rank == 3
    if squeeze:
        x = ctx.fn.reshape(x, (1,) + x.shape)
        dy = ctx.fn.reshape(dy, (1,) + dy.shape)
    n, c, h, w = x.shape
    t = dy.dtype

    def scaled(b, a):
        div = _avg_divisor(b, k, s, p, h, w, count_include_pad, divisor_override)
        return [b.div(a[0], b.cast(div, "i64", t), t)]
    g = map_elementwise(ctx, [dy], dy.shape, t, scaled, "avgg")
    r = _scatter_windows(ctx, (n, c, h, w), k, s, p, [1, 1], dy.shape[2:], lambda kh, kw: g)
    if squeeze:
        r = ctx.fn.reshape(r, r.shape[1:])
    return r


def _adaptive_kernel(ctx, x: Value, output_size):
    h, w = x.shape[-2:]
    oh, ow = output_size
    if h % oh or w % ow:
        raise ctx.fail(
            f"adaptive pooling from {h}x{w} to {oh}x{ow} has windows of different sizes",
            "use an input size divisible by the output size (or nn.AvgPool2d)")
    return [h // oh, w // ow]


@lowers(aten._adaptive_avg_pool2d.default, aten.adaptive_avg_pool2d.default)
def _adaptive_avg(ctx: Context, node, x, output_size):
    k = _adaptive_kernel(ctx, x, output_size)
    squeeze = x.rank == 3
    if squeeze:
        x = ctx.fn.reshape(x, (1,) + x.shape)
    n, c, h, w = x.shape
    t = x.dtype
    oh, ow = h // k[0], w // k[1]
    out = OutputSpec((n, c, oh, ow), t, ["d0", "d1", "d2", "d3"], fill=0)
    total = ctx.fn.generic(6, ["parallel"] * 4 + ["reduction"] * 2,
                           [(x, _window_exprs(k, [1, 1])), _window(ctx, k)], [out],
                           lambda b, a: [b.add(a[2], a[0], t)], "apsum")[0]
    r = map_elementwise(ctx, [total], total.shape, t,
                        lambda b, a: [b.div(a[0], b.const(k[0] * k[1], t), t)], "ap")
    if squeeze:
        r = ctx.fn.reshape(r, r.shape[1:])
    return r


@lowers(aten._adaptive_avg_pool2d_backward.default)
def _adaptive_avg_backward(ctx: Context, node, dy, x):
    k = _adaptive_kernel(ctx, x, dy.shape[-2:])
    t = dy.dtype
    rank = x.rank
    lead = [f"d{i}" for i in range(rank - 2)]
    exprs = lead + [f"d{rank - 2} floordiv {k[0]}", f"d{rank - 1} floordiv {k[1]}"]
    out = OutputSpec(x.shape, t, [f"d{i}" for i in range(rank)])
    area = k[0] * k[1]
    return ctx.fn.generic(rank, ["parallel"] * rank, [(dy, exprs)], [out],
                          lambda b, a: [b.div(a[0], b.const(area, t), t)], "apg")[0]
