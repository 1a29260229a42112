"""Casts, copies, fills and ranges: values are immutable, so a copy of the
same dtype is the value itself; a broadcast copy or expand is one generic."""

from __future__ import annotations

import torch

from ..mlir import Body, OutputSpec, Value, is_float
from . import aten, lowers
from .elementwise import map_elementwise


@lowers(aten._to_copy.default, aten.to.dtype, aten.to.dtype_layout, aten.clone.default,
        aten.lift_fresh_copy.default, aten.alias.default, aten.detach.default,
        aten.contiguous.default, aten.lift.default, aten.lift_fresh.default)
def _copy(ctx, node, x, *args, **kwargs):
    t = ctx.out_dtype
    if t == x.dtype:
        return x  # values are immutable: a copy is the value itself
    return ctx.cast(x, t)


@lowers(getattr(torch.ops.prims.convert_element_type, "default", None))
def _convert(ctx, node, x, dtype):
    return ctx.cast(x, ctx.out_dtype)


@lowers(aten.copy.default)
def _copy2(ctx, node, dst, src, *args):
    t = ctx.out_dtype
    src = ctx.cast(src, t)
    if src.shape == tuple(ctx.out_shape):
        return src
    return map_elementwise(ctx, [src], ctx.out_shape, t, lambda b, a: [a[0]])


@lowers(aten.expand.default, aten.expand_copy.default)
def _expand(ctx, node, x, sizes, implicit=False):
    if x.shape == tuple(ctx.out_shape):
        return x
    return map_elementwise(ctx, [x], ctx.out_shape, x.dtype, lambda b, a: [a[0]], "bc")


@lowers(aten.fill.Scalar, aten.fill.Tensor)
def _fill(ctx, node, x, value):
    if isinstance(value, Value):
        v = ctx.cast(value, ctx.out_dtype)
        return map_elementwise(ctx, [v], ctx.out_shape, ctx.out_dtype, lambda b, a: [a[0]], "bc")
    return ctx.fn.full(ctx.out_shape, ctx.out_dtype, value)


@lowers(aten.zeros_like.default, aten.ones_like.default, aten.full_like.default,
        aten.empty_like.default, aten.new_empty.default, aten.new_zeros.default,
        aten.new_ones.default, aten.new_full.default, aten.full.default, aten.zeros.default,
        aten.ones.default, aten.empty.memory_format, aten.scalar_tensor.default,
        aten.new_empty_strided.default, aten.empty_strided.default)
def _constant_like(ctx, node, *args, **kwargs):
    target = node.target
    if target in (aten.ones_like.default, aten.new_ones.default, aten.ones.default):
        value = 1
    elif target in (aten.full_like.default,):
        value = args[1]
    elif target in (aten.new_full.default,):
        value = args[2]
    elif target in (aten.full.default,):
        value = args[1]
    elif target is aten.scalar_tensor.default:
        value = args[0]
    else:
        value = 0  # zeros, and empty: its contents are unspecified
    return ctx.fn.full(ctx.out_shape, ctx.out_dtype, value)


@lowers(aten.arange.default, aten.arange.start, aten.arange.start_step)
def _arange(ctx, node, *args, **kwargs):
    if node.target is aten.arange.default:
        start, step = 0, 1
    elif node.target is aten.arange.start:
        start, step = args[0], 1
    else:
        start, step = args[0], args[2]
    t = ctx.out_dtype

    def body(b: Body, a):
        i = b.index_cast(b.index(0), "i64")
        if is_float(t):
            f = b.cast(i, "i64", "f64")
            v = b.add(b.const(start, "f64"), b.mul(f, b.const(step, "f64"), "f64"), "f64")
            return [b.cast(v, "f64", t)]
        v = b.add(b.const(start, "i64"), b.mul(i, b.const(step, "i64"), "i64"), "i64")
        return [b.cast(v, "i64", t)]
    out = OutputSpec(tuple(ctx.out_shape), t, ["d0"])
    return ctx.fn.generic(1, ["parallel"], [], [out], body, "ar")[0]
