"""Matrix products and convolutions, forward and backward.

Plain products are linalg's named ops; a product whose operand is a
transpose takes the transpose into its indexing maps (a linalg.generic
whose body is one multiply-accumulate: the form hwagent-linalg-to-kernels
sends to the packed GEMM kernel), so no transposed copy is materialized.

Convolutions (NCHW, any stride, padding, dilation and groups) are linalg's
named convolutions; their gradients have no named op and are written as
contractions over affine index sums:
- weight gradient: dW[f,c,kh,kw] = sum_{n,oh,ow} dy[n,f,oh,ow] * xp[n,c,s*oh+d*kh,s*ow+d*kw]
  over the padded input xp;
- input gradient: dy scattered back through the windows into the padded
  input, dXp[n,c,s*oh+d*kh,s*ow+d*kw] += dy[n,f,oh,ow] * w[f,c,kh,kw], whose
  interior is dX (oneDNN's backward-data form; no interleaved zeros, no
  flipped filter).
Groups get explicit group dimensions (a free reshape), so every index map
stays invertible.
"""

from __future__ import annotations

import torch

from ..mlir import OutputSpec, Value
from . import Context, aten, lowers
from .elementwise import map_elementwise
from .reduction import sum_of



def mac(b, args, dtype):
    return [b.add(args[2], b.mul(args[0], args[1], dtype), dtype)]


def contraction(ctx: Context, a: Value, a_exprs, b_: Value, b_exprs, out_shape, out_exprs,
                iters, hint="mm", dtype: str | None = None) -> Value:
    t = dtype or a.dtype
    a = ctx.cast(a, t)
    b_ = ctx.cast(b_, t)
    out = OutputSpec(tuple(out_shape), t, out_exprs, fill=0)
    return ctx.fn.generic(len(iters), iters, [(a, a_exprs), (b_, b_exprs)], [out],
                          lambda b, args: mac(b, args, t), hint)[0]


@lowers(aten.mm.default)
def _mm(ctx: Context, node, a, b_):
    a_src, a_t = ctx.look_through_transpose(node.args[0], 2)
    b_src, b_t = ctx.look_through_transpose(node.args[1], 2)
    m, n = ctx.out_shape
    if not a_t and not b_t:
        init = ctx.fn.full((m, n), ctx.out_dtype, 0)
        return ctx.fn.named("matmul", [ctx.cast(a_src, ctx.out_dtype), ctx.cast(b_src, ctx.out_dtype)],
                            init, hint="mm")
    # loops: i j k
    a_exprs = ["d2", "d0"] if a_t else ["d0", "d2"]
    b_exprs = ["d1", "d2"] if b_t else ["d2", "d1"]
    return contraction(ctx, a_src, a_exprs, b_src, b_exprs, (m, n), ["d0", "d1"],
                       ["parallel", "parallel", "reduction"], dtype=ctx.out_dtype)


_mm.lazy_args = True


@lowers(aten.bmm.default)
def _bmm(ctx: Context, node, a, b_):
    a_src, a_t = ctx.look_through_transpose(node.args[0], 3)
    b_src, b_t = ctx.look_through_transpose(node.args[1], 3)
    bsz, m, n = ctx.out_shape
    if not a_t and not b_t:
        init = ctx.fn.full((bsz, m, n), ctx.out_dtype, 0)
        return ctx.fn.named("batch_matmul", [ctx.cast(a_src, ctx.out_dtype),
                                             ctx.cast(b_src, ctx.out_dtype)], init, hint="bmm")
    a_exprs = ["d0", "d3", "d1"] if a_t else ["d0", "d1", "d3"]
    b_exprs = ["d0", "d2", "d3"] if b_t else ["d0", "d3", "d2"]
    return contraction(ctx, a_src, a_exprs, b_src, b_exprs, (bsz, m, n), ["d0", "d1", "d2"],
                       ["parallel"] * 3 + ["reduction"], "bmm", ctx.out_dtype)


_bmm.lazy_args = True


@lowers(aten.baddbmm.default)
def _baddbmm(ctx: Context, node, x, a, b_, beta=1, alpha=1):
    beta = node.kwargs.get("beta", beta)
    alpha = node.kwargs.get("alpha", alpha)
    p = _bmm(ctx, node, a, b_)
    t = ctx.out_dtype

    def body(b, s):
        r = b.mul(s[1], b.const(alpha, t), t) if alpha != 1 else s[1]
        if beta == 0:
            return [r]
        xv = b.mul(s[0], b.const(beta, t), t) if beta != 1 else s[0]
        return [b.add(xv, r, t)]
    return map_elementwise(ctx, [x, p], p.shape, t, body)


# --- convolution -----------------------------------------------------------------

def _pair(v, n=2):
    if isinstance(v, int):
        return [v] * n
    v = list(v)
    return v * n if len(v) == 1 else v


def _as_2d(x: Value) -> Value:
    """NCW as NC1W: 1-D convolutions go through the 2-D path."""
    return x


def _dense(values) -> str:
    return f"dense<[{', '.join(str(v) for v in values)}]> : tensor<{len(values)}xi64>"


def conv_forward(ctx: Context, x: Value, w: Value, stride, padding, dilation, groups) -> Value:
    n, cin, h, wd = x.shape
    f, cg, kh, kw = w.shape
    t = ctx.out_dtype
    xp = ctx.fn.pad(ctx.cast(x, t), [0, 0, padding[0], padding[1]],
                    [0, 0, padding[0], padding[1]], 0)
    oh = (xp.shape[2] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (xp.shape[3] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    attrs = f" {{dilations = {_dense(dilation)}, strides = {_dense(stride)}}}"
    w = ctx.cast(w, t)
    if groups == 1:
        init = ctx.fn.full((n, f, oh, ow), t, 0)
        return ctx.fn.named("conv_2d_nchw_fchw", [xp, w], init, attrs, "conv")
    if groups == cin and f == cin and cg == 1:
        w3 = ctx.fn.collapse(w, [[0, 1], [2], [3]], (f, kh, kw))
        init = ctx.fn.full((n, f, oh, ow), t, 0)
        return ctx.fn.named("depthwise_conv_2d_nchw_chw", [xp, w3], init, attrs, "dw")
    g = groups
    xg = ctx.fn.expand(xp, [[0], [1, 2], [3], [4]], (n, g, cin // g, xp.shape[2], xp.shape[3]))
    wg = ctx.fn.expand(w, [[0, 1], [2], [3], [4]], (g, f // g, cg, kh, kw))
    init = ctx.fn.full((n, g, f // g, oh, ow), t, 0)
    y = ctx.fn.named("conv_2d_ngchw_gfchw", [xg, wg], init, attrs, "gconv")
    return ctx.fn.collapse(y, [[0], [1, 2], [3], [4]], (n, f, oh, ow))


def add_channel_bias(ctx: Context, y: Value, bias: Value) -> Value:
    t = y.dtype
    bias = ctx.cast(bias, t)
    return map_elementwise(ctx, [y, ctx.fn.reshape(bias, (1, bias.shape[0]) + (1,) * (y.rank - 2))],
                           y.shape, t, lambda b, a: [b.add(a[0], a[1], t)])


def conv_weight_grad(ctx: Context, dy: Value, x: Value, wshape, stride, padding, dilation,
                     groups) -> Value:
    """dW for a convolution of x (N,Cin,H,W) to dy (N,F,OH,OW)."""
    t = dy.dtype
    n, f, oh, ow = dy.shape
    _, cin, _, _ = x.shape
    fw, cg, kh, kw = wshape
    xp = ctx.fn.pad(ctx.cast(x, t), [0, 0, padding[0], padding[1]],
                    [0, 0, padding[0], padding[1]], 0)
    # Rows the forward never read (the bottom of a strided window) are cut so
    # every index below stays in range.
    need_h = (oh - 1) * stride[0] + (kh - 1) * dilation[0] + 1
    need_w = (ow - 1) * stride[1] + (kw - 1) * dilation[1] + 1
    if xp.shape[2] > need_h or xp.shape[3] > need_w:
        xp = ctx.fn.extract_slice(xp, [0, 0, 0, 0], [n, cin, need_h, need_w], [1, 1, 1, 1])
    s0, s1, d0, d1 = stride[0], stride[1], dilation[0], dilation[1]
    red = ["reduction"] * 3

    def rows(o, k, s, d):
        return f"{o} * {s} + {k} * {d}" if (s != 1 or d != 1) else f"{o} + {k}"

    if groups == 1:
        # loops: f c kh kw | n oh ow
        return contraction(ctx, dy, ["d4", "d0", "d5", "d6"], xp,
                           ["d4", "d1", rows("d5", "d2", s0, d0), rows("d6", "d3", s1, d1)],
                           (fw, cg, kh, kw), ["d0", "d1", "d2", "d3"], ["parallel"] * 4 + red,
                           "dwgt")
    if groups == cin and fw == cin and cg == 1:
        # loops: c kh kw | n oh ow
        r = contraction(ctx, dy, ["d3", "d0", "d4", "d5"], xp,
                        ["d3", "d0", rows("d4", "d1", s0, d0), rows("d5", "d2", s1, d1)],
                        (fw, kh, kw), ["d0", "d1", "d2"], ["parallel"] * 3 + red, "ddw")
        return ctx.fn.expand(r, [[0, 1], [2], [3]], (fw, 1, kh, kw))
    g = groups
    dyg = ctx.fn.expand(dy, [[0], [1, 2], [3], [4]], (n, g, f // g, oh, ow))
    xg = ctx.fn.expand(xp, [[0], [1, 2], [3], [4]], (n, g, cin // g, xp.shape[2], xp.shape[3]))
    # loops: g f c kh kw | n oh ow
    r = contraction(ctx, dyg, ["d5", "d0", "d1", "d6", "d7"], xg,
                    ["d5", "d0", "d2", rows("d6", "d3", s0, d0), rows("d7", "d4", s1, d1)],
                    (g, f // g, cg, kh, kw), ["d0", "d1", "d2", "d3", "d4"],
                    ["parallel"] * 5 + red, "gdwgt")
    return ctx.fn.collapse(r, [[0, 1], [2], [3], [4]], tuple(wshape))


def conv_input_grad(ctx: Context, dy: Value, w: Value, xshape, stride, padding, dilation,
                    groups) -> Value:
    """dX (shape xshape) for a convolution with filter w (F, Cin/G, KH, KW).

    Each output gradient is scattered back through the window that read it,
    dXp[n,c,s*oh+d*kh,s*ow+d*kw] += dy[n,f,oh,ow] * w[f,c,kh,kw], into the
    padded input's shape, whose interior is dX: the form oneDNN's
    backward-data primitive computes (hwagent's kernel runs it as one), with
    no zeros interleaved for the stride and no flipped copy of the filter.
    The window loops write overlapping elements, so they are reductions.
    """
    t = dy.dtype
    n, f, oh, ow = dy.shape
    _, cin, h, wd = xshape
    fw, cg, kh, kw = w.shape
    w = ctx.cast(w, t)
    s0, s1, d0, d1 = stride[0], stride[1], dilation[0], dilation[1]
    hp, wp = h + 2 * padding[0], wd + 2 * padding[1]

    def rows(o, k, s, d):
        return f"{o} * {s} + {k} * {d}" if (s != 1 or d != 1) else f"{o} + {k}"

    if groups == 1:
        # loops: n c | oh ow f kh kw
        dxp = contraction(ctx, dy, ["d0", "d4", "d2", "d3"], w, ["d4", "d1", "d5", "d6"],
                          (n, cin, hp, wp),
                          ["d0", "d1", rows("d2", "d5", s0, d0), rows("d3", "d6", s1, d1)],
                          ["parallel"] * 2 + ["reduction"] * 5, "dx")
    elif groups == cin and fw == cin and cg == 1:
        w3 = ctx.fn.collapse(w, [[0, 1], [2], [3]], (fw, kh, kw))
        # loops: n c | oh ow kh kw
        dxp = contraction(ctx, dy, ["d0", "d1", "d2", "d3"], w3, ["d1", "d4", "d5"],
                          (n, cin, hp, wp),
                          ["d0", "d1", rows("d2", "d4", s0, d0), rows("d3", "d5", s1, d1)],
                          ["parallel"] * 2 + ["reduction"] * 4, "ddx")
    else:
        g = groups
        wg = ctx.fn.expand(w, [[0, 1], [2], [3], [4]], (g, fw // g, cg, kh, kw))
        dyg = ctx.fn.expand(dy, [[0], [1, 2], [3], [4]], (n, g, f // g, oh, ow))
        # loops: n g c | oh ow f kh kw
        r = contraction(ctx, dyg, ["d0", "d1", "d5", "d3", "d4"], wg,
                        ["d1", "d5", "d2", "d6", "d7"], (n, g, cin // g, hp, wp),
                        ["d0", "d1", "d2", rows("d3", "d6", s0, d0), rows("d4", "d7", s1, d1)],
                        ["parallel"] * 3 + ["reduction"] * 5, "gdx")
        dxp = ctx.fn.collapse(r, [[0], [1, 2], [3], [4]], (n, cin, hp, wp))
    if hp == h and wp == wd:
        return dxp
    return ctx.fn.extract_slice(dxp, [0, 0, padding[0], padding[1]], [n, cin, h, wd],
                                [1, 1, 1, 1])


def _conv_args(ctx, x: Value, stride, padding, dilation):
    nd = x.rank - 2
    if nd not in (1, 2):
        raise ctx.fail(f"{nd}-d convolutions are not supported (1-d and 2-d are)")
    return nd, _pair(stride, nd), _pair(padding, nd), _pair(dilation, nd)


def _to2d(ctx, v: Value | None) -> Value | None:
    if v is None or v.rank != 3:
        return v
    return ctx.fn.expand(v, [[0], [1], [2, 3]], (v.shape[0], v.shape[1], 1, v.shape[2]))


def _from2d(ctx, v: Value, nd: int) -> Value:
    if nd == 2:
        return v
    return ctx.fn.collapse(v, [[0], [1], [2, 3]], (v.shape[0], v.shape[1], v.shape[3]))


def _lift(nd, stride, padding, dilation, output_padding=None):
    if nd == 2:
        return stride, padding, dilation, output_padding
    op = None if output_padding is None else [0] + list(output_padding)
    return [1] + stride, [0] + padding, [1] + dilation, op


@lowers(aten.convolution.default)
def _convolution(ctx: Context, node, x, w, bias, stride, padding, dilation, transposed,
                 output_padding, groups):
    nd, stride, padding, dilation = _conv_args(ctx, x, stride, padding, dilation)
    output_padding = _pair(output_padding, nd)
    stride, padding, dilation, output_padding = _lift(nd, stride, padding, dilation,
                                                      output_padding)
    x2, w2 = _to2d(ctx, x), _to2d(ctx, w)
    t = ctx.out_dtype
    if not transposed:
        y = conv_forward(ctx, x2, w2, stride, padding, dilation, groups)
    else:
        out = ctx.out_shape
        out2 = out if nd == 2 else (out[0], out[1], 1, out[2])
        # A transposed convolution is the input gradient of the convolution
        # whose filter it holds (Cin, Cout/G, KH, KW) = (F, C/G, KH, KW).
        y = conv_input_grad(ctx, ctx.cast(x2, t), _regroup_transposed(ctx, w2, groups),
                            out2, stride, padding, dilation, groups)
    if bias is not None:
        y = add_channel_bias(ctx, y, bias)
    return _from2d(ctx, y, nd)


def _regroup_transposed(ctx, w: Value, groups: int) -> Value:
    """ConvTranspose's (Cin, Cout/G, ...) filter is the forward filter of
    the adjoint convolution: with groups, rows are ordered by group already."""
    return w


@lowers(aten.convolution_backward.default)
def _convolution_backward(ctx: Context, node, dy, x, w, bias_sizes, stride, padding, dilation,
                          transposed, output_padding, groups, output_mask):
    nd, stride, padding, dilation = _conv_args(ctx, x, stride, padding, dilation)
    stride, padding, dilation, _ = _lift(nd, stride, padding, dilation, None)
    dy2, x2, w2 = _to2d(ctx, dy), _to2d(ctx, x), _to2d(ctx, w)
    t = dy.dtype
    gx = gw = gb = None
    if not transposed:
        if output_mask[0]:
            gx = _from2d(ctx, conv_input_grad(ctx, dy2, w2, x2.shape, stride, padding, dilation,
                                              groups), nd)
        if output_mask[1]:
            gw = _from2d(ctx, conv_weight_grad(ctx, dy2, x2, w2.shape, stride, padding,
                                               dilation, groups), nd)
    else:
        # y = conv_transpose(x, w): dx = conv(dy, w), dw = weight gradient
        # with the roles of x and dy exchanged.
        if output_mask[0]:
            gx = _from2d(ctx, conv_forward(ctx, dy2, w2, stride, padding, dilation, groups), nd)
        if output_mask[1]:
            gw = _from2d(ctx, conv_weight_grad(ctx, ctx.cast(x2, t), dy2, w2.shape, stride,
                                               padding, dilation, groups), nd)
    if output_mask[2]:
        gb = sum_of(ctx, dy, [0] + list(range(2, dy.rank)), False, t)
    return (gx, gw, gb)
