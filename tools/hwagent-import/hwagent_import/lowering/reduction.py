"""Reductions: one linalg.generic with reduction iterators each.

Sums accumulate in the input's float type (or i64 for integers, as
PyTorch does); mean and variance divide by the count as ATen does. The
variance is two-pass (mean, then squared deviations), which PyTorch's
Welford kernel matches to rounding.
"""

from __future__ import annotations

from typing import Sequence

import torch

from ..mlir import OutputSpec, Value, is_float
from . import Context, aten, lowers, normalize_dim
from .elementwise import map_elementwise



def _dims(x: Value, dims) -> list[int]:
    if dims is None or dims == [] or dims == ():
        return list(range(x.rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({normalize_dim(d, x.rank) for d in dims})


def reduce(ctx: Context, x: Value, dims: Sequence[int], acc_dtype: str, init,
           combine, keepdim: bool = False, hint: str = "red") -> Value:
    """Reduce `x` over `dims`; combine(b, acc, value, dtype) -> new acc."""
    rank = x.rank
    kept = [i for i in range(rank) if i not in dims]
    out_shape = tuple(x.shape[i] for i in kept)
    iters = ["reduction" if i in dims else "parallel" for i in range(rank)]
    out = OutputSpec(out_shape, acc_dtype, [f"d{i}" for i in kept], fill=init)

    def body(b, args):
        v = b.cast(args[0], x.dtype, acc_dtype)
        return [combine(b, args[1], v, acc_dtype)]

    r = ctx.fn.generic(rank, iters, [(x, [f"d{i}" for i in range(rank)])], [out], body, hint)[0]
    if keepdim:
        r = keep_dims(ctx, r, x.shape, dims)
    return r


def keep_dims(ctx: Context, r: Value, in_shape, dims) -> Value:
    shape = [1 if i in dims else d for i, d in enumerate(in_shape)]
    return ctx.fn.reshape(r, shape)


def sum_of(ctx: Context, x: Value, dims, keepdim=False, dtype: str | None = None) -> Value:
    acc = dtype or (x.dtype if is_float(x.dtype) else "i64")
    return reduce(ctx, x, dims, acc, 0, lambda b, a, v, t: b.add(a, v, t), keepdim, "sum")


@lowers(aten.sum.dim_IntList, aten.sum.default)
def _sum(ctx, node, x, dims=None, keepdim=False, dtype=None):
    keepdim = node.kwargs.get("keepdim", keepdim)
    out = ctx.out_dtype
    r = sum_of(ctx, x, _dims(x, dims), keepdim, out if is_float(out) else "i64")
    return ctx.cast(r, out)


@lowers(getattr(torch.ops.prims.sum, "default", None))
def _prims_sum(ctx, node, x, dims, output_dtype=None):
    out = ctx.out_dtype
    r = sum_of(ctx, x, _dims(x, dims), False, out if is_float(out) else "i64")
    return ctx.cast(r, out)


@lowers(aten.mean.dim, aten.mean.default)
def _mean(ctx, node, x, dims=None, keepdim=False, dtype=None):
    keepdim = node.kwargs.get("keepdim", keepdim)
    d = _dims(x, dims)
    t = ctx.out_dtype
    count = 1
    for i in d:
        count *= x.shape[i]
    s = sum_of(ctx, ctx.cast(x, t), d, keepdim, t)
    return map_elementwise(ctx, [s], s.shape, t, lambda b, a: [b.div(a[0], b.const(count, t), t)])


def _extreme(kind: str):
    def lower(ctx, node, x, dims=None, keepdim=False):
        keepdim = node.kwargs.get("keepdim", keepdim)
        init = float("-inf") if kind == "max" else float("inf")
        if not is_float(x.dtype):
            info = torch.iinfo({"i64": torch.int64, "i32": torch.int32, "i8": torch.int8,
                                "i16": torch.int16}.get(x.dtype, torch.int64))
            init = info.min if kind == "max" else info.max
            if x.dtype == "i1":
                init = 0 if kind == "max" else 1
        fn = (lambda b, a, v, t: b.maximum(a, v, t)) if kind == "max" else \
             (lambda b, a, v, t: b.minimum(a, v, t))
        return reduce(ctx, x, _dims(x, dims), x.dtype, init, fn, keepdim, kind)
    return lower


lowers(aten.amax.default, aten.max.default)(_extreme("max"))
lowers(aten.amin.default, aten.min.default)(_extreme("min"))


@lowers(aten.any.default, aten.any.dim)
def _any(ctx, node, x, dim=None, keepdim=False):
    xb = ctx.cast(x, "i1")
    return reduce(ctx, xb, _dims(x, dim), "i1", 0, lambda b, a, v, t: b.logical("ori", a, v),
                  keepdim, "any")


@lowers(aten.all.default, aten.all.dim)
def _all(ctx, node, x, dim=None, keepdim=False):
    xb = ctx.cast(x, "i1")
    return reduce(ctx, xb, _dims(x, dim), "i1", 1, lambda b, a, v, t: b.logical("andi", a, v),
                  keepdim, "all")


def arg_extreme(ctx: Context, x: Value, dim: int, kind: str, keepdim: bool):
    """(values, int64 indices) of the first maximum (minimum) along `dim`;
    NaN wins, as in ATen."""
    rank = x.rank
    dim = normalize_dim(dim, rank)
    kept = [i for i in range(rank) if i != dim]
    shape = tuple(x.shape[i] for i in kept)
    init = float("-inf") if kind == "max" else float("inf")
    if not is_float(x.dtype):
        init = -(2 ** 63) if kind == "max" else 2 ** 63 - 1
    outs = [OutputSpec(shape, x.dtype, [f"d{i}" for i in kept], fill=init),
            OutputSpec(shape, "i64", [f"d{i}" for i in kept], fill=0)]
    iters = ["reduction" if i == dim else "parallel" for i in range(rank)]

    def body(b, args):
        v, best, idx = args
        t = x.dtype
        better = b.cmp("gt" if kind == "max" else "lt", v, best, t)
        if is_float(t):
            v_nan = b.isnan(v, t)
            best_nan = b.isnan(best, t)
            take_nan = b.logical("andi", v_nan, b.logical("xori", best_nan, b.const(1, "i1")))
            better = b.logical("ori", better, take_nan)
        i = b.index_cast(b.index(dim), "i64")
        return [b.select(better, v, best, t), b.select(better, i, idx, "i64")]

    vals, inds = ctx.fn.generic(rank, iters, [(x, [f"d{i}" for i in range(rank)])], outs, body,
                                "ext")
    if keepdim:
        vals = keep_dims(ctx, vals, x.shape, [dim])
        inds = keep_dims(ctx, inds, x.shape, [dim])
    return vals, inds


@lowers(aten.max.dim)
def _max_dim(ctx, node, x, dim, keepdim=False):
    return arg_extreme(ctx, x, dim, "max", keepdim)


@lowers(aten.min.dim)
def _min_dim(ctx, node, x, dim, keepdim=False):
    return arg_extreme(ctx, x, dim, "min", keepdim)


@lowers(aten.argmax.default)
def _argmax(ctx, node, x, dim=None, keepdim=False):
    if dim is None:
        x = ctx.fn.reshape(x, (x.numel,))
        dim = 0
    return arg_extreme(ctx, x, dim, "max", keepdim)[1]


@lowers(aten.argmin.default)
def _argmin(ctx, node, x, dim=None, keepdim=False):
    if dim is None:
        x = ctx.fn.reshape(x, (x.numel,))
        dim = 0
    return arg_extreme(ctx, x, dim, "min", keepdim)[1]


def variance(ctx: Context, x: Value, dims, correction, keepdim: bool):
    """(variance, mean) over dims, two-pass."""
    d = _dims(x, dims)
    t = x.dtype
    count = 1
    for i in d:
        count *= x.shape[i]
    s = sum_of(ctx, x, d, True, t)
    mean = map_elementwise(ctx, [s], s.shape, t, lambda b, a: [b.div(a[0], b.const(count, t), t)])

    def sq(b, a):
        diff = b.sub(a[0], a[1], t)
        return [b.mul(diff, diff, t)]
    dev = map_elementwise(ctx, [x, mean], x.shape, t, sq)
    ss = sum_of(ctx, dev, d, keepdim, t)
    denom = max(count - correction, 0)
    var = map_elementwise(ctx, [ss], ss.shape, t,
                          lambda b, a: [b.div(a[0], b.const(denom, t), t)])
    if not keepdim:
        mean = ctx.fn.reshape(mean, var.shape)
    return var, mean


@lowers(aten.var.correction, aten.var.dim, aten.var.default)
def _var(ctx, node, x, dims=None, *args, **kwargs):
    correction = kwargs.get("correction", None)
    keepdim = kwargs.get("keepdim", False)
    if node.target is aten.var.dim:
        unbiased = args[0] if args else kwargs.get("unbiased", True)
        keepdim = args[1] if len(args) > 1 else keepdim
        correction = 1 if unbiased else 0
    elif node.target is aten.var.default:
        correction = 1 if (dims if isinstance(dims, bool) else True) else 0
        dims = None
    if correction is None:
        correction = 1
    return variance(ctx, x, dims, correction, keepdim)[0]


@lowers(aten.var_mean.correction)
def _var_mean(ctx, node, x, dims=None, **kwargs):
    correction = kwargs.get("correction", None)
    if correction is None:
        correction = 1
    return variance(ctx, x, dims, correction, kwargs.get("keepdim", False))


@lowers(aten.prod.default, aten.prod.dim_int)
def _prod(ctx, node, x, dim=None, keepdim=False, dtype=None):
    t = ctx.out_dtype
    return reduce(ctx, ctx.cast(x, t), _dims(x, dim), t, 1,
                  lambda b, a, v, ty: b.mul(a, v, ty), keepdim, "prod")


@lowers(aten.cumsum.default)
def _cumsum(ctx, node, x, dim, dtype=None):
    """out[..., i, ...] = sum_{j <= i} x[..., j, ...] as a masked reduction
    (quadratic in the scanned length; fine for the short axes models scan)."""
    dim = normalize_dim(dim, x.rank)
    t = ctx.out_dtype
    xc = ctx.cast(x, t)
    rank = x.rank
    n = x.shape[dim]
    # loops: the output dims, then j
    in_exprs = [f"d{i}" if i != dim else f"d{rank}" for i in range(rank)]
    iters = ["parallel"] * rank + ["reduction"]
    out = OutputSpec(tuple(x.shape), t, [f"d{i}" for i in range(rank)], fill=0)
    del n

    def body(b, args):
        i = b.index(dim)
        j = b.index(rank)
        take = b.emit(f"arith.cmpi ule, {j}, {i} : index")
        v = b.select(take, args[0], b.const(0, t), t)
        return [b.add(args[1], v, t)]
    return ctx.fn.generic(rank + 1, iters, [(xc, in_exprs)], [out], body, "cum")[0]


def _reduce_loss(ctx: Context, per_element: Value, reduction: int) -> Value:
    """ATen's Reduction enum: 0 none, 1 mean, 2 sum."""
    if reduction == 0:
        return per_element
    t = per_element.dtype
    s = sum_of(ctx, per_element, list(range(per_element.rank)), False, t)
    if reduction == 2:
        return s
    n = per_element.numel
    return map_elementwise(ctx, [s], (), t, lambda b, a: [b.div(a[0], b.const(n, t), t)])


@lowers(aten.smooth_l1_loss.default)
def _smooth_l1(ctx: Context, node, x, target, reduction=1, beta=1.0):
    t = x.dtype

    def body(b, a):
        z = b.math("absf", b.sub(a[0], a[1], t), t)
        half = b.const(0.5, t)
        bt = b.const(beta, t)
        quad = b.div(b.mul(b.mul(half, z, t), z, t), bt, t)
        lin = b.sub(z, b.mul(half, bt, t), t)
        return [b.select(b.cmp("lt", z, bt, t), quad, lin, t)]
    per = map_elementwise(ctx, [x, ctx.cast(target, t)], x.shape, t, body, "sl1")
    return _reduce_loss(ctx, per, reduction)


@lowers(aten.smooth_l1_loss_backward.default)
def _smooth_l1_backward(ctx: Context, node, grad, x, target, reduction, beta):
    t = x.dtype
    norm = 1.0 / x.numel if reduction == 1 else 1.0

    def body(b, a):
        g, xi, ti = a
        d = b.sub(xi, ti, t)
        nv = b.const(norm, t)
        bt = b.const(beta, t)
        neg = b.mul(b.neg(nv, t), g, t)
        pos = b.mul(nv, g, t)
        mid = b.div(b.mul(b.mul(nv, d, t), g, t), bt, t)
        r = b.select(b.cmp("ge", d, bt, t), pos, mid, t)
        return [b.select(b.cmp("le", d, b.neg(bt, t), t), neg, r, t)]
    return map_elementwise(ctx, [grad, x, ctx.cast(target, t)], x.shape, t, body, "sl1g")


@lowers(aten.huber_loss.default)
def _huber(ctx: Context, node, x, target, reduction=1, delta=1.0):
    t = x.dtype

    def body(b, a):
        z = b.math("absf", b.sub(a[0], a[1], t), t)
        half = b.const(0.5, t)
        dl = b.const(delta, t)
        quad = b.mul(b.mul(half, z, t), z, t)
        lin = b.mul(dl, b.sub(z, b.mul(half, dl, t), t), t)
        return [b.select(b.cmp("lt", z, dl, t), quad, lin, t)]
    per = map_elementwise(ctx, [x, ctx.cast(target, t)], x.shape, t, body, "hub")
    return _reduce_loss(ctx, per, reduction)


@lowers(aten.norm.ScalarOpt_dim, aten.norm.Scalar, aten.linalg_vector_norm.default)
def _norm(ctx: Context, node, x, p=2, dim=None, keepdim=False, dtype=None):
    if node.target is aten.linalg_vector_norm.default:
        p = node.args[1] if len(node.args) > 1 else node.kwargs.get("ord", 2)
    if p is None:
        p = 2
    t = ctx.out_dtype
    d = _dims(x, dim)
    if p == 2:
        sq = map_elementwise(ctx, [x], x.shape, t, lambda b, a: [b.mul(a[0], a[0], t)])
        s = sum_of(ctx, sq, d, keepdim, t)
        return map_elementwise(ctx, [s], s.shape, t, lambda b, a: [b.math("sqrt", a[0], t)])
    if p == 1:
        ab = map_elementwise(ctx, [x], x.shape, t, lambda b, a: [b.math("absf", a[0], t)])
        return sum_of(ctx, ab, d, keepdim, t)
    if p == float("inf"):
        ab = map_elementwise(ctx, [x], x.shape, t, lambda b, a: [b.math("absf", a[0], t)])
        return reduce(ctx, ab, d, t, 0.0, lambda b, a, v, ty: b.maximum(a, v, ty), keepdim)
    raise ctx.fail(f"the {p}-norm is not supported (1, 2 and inf are)")
