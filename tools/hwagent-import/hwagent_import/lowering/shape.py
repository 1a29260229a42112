"""Views and data movement: reshapes, transposes, slices, concatenation, pads.

Values are immutable here, so every view is the reshape or slice of the
logical tensor it shows (PyTorch's strides do not matter once the graph
is functional).
"""

from __future__ import annotations

import torch

from ..mlir import OutputSpec, Value
from . import Context, aten, lowers, normalize_dim
from .elementwise import map_elementwise


INT64_MAX = 2 ** 63 - 1


@lowers(aten.view.default, aten._reshape_alias.default, aten.reshape.default,
        aten._unsafe_view.default, aten.view_copy.default, aten.squeeze.dim,
        aten.squeeze.default, aten.squeeze.dims, aten.unsqueeze.default,
        aten.unsqueeze_copy.default, aten.squeeze_copy.dim, aten.flatten.using_ints,
        aten.unflatten.int)
def _reshape(ctx: Context, node, x, *args, **kwargs):
    return ctx.fn.reshape(x, ctx.out_shape)


def transpose(ctx: Context, x: Value, perm) -> Value:
    perm = [normalize_dim(p, x.rank) for p in perm]
    if perm == list(range(x.rank)):
        return x
    shape = tuple(x.shape[p] for p in perm)
    # A permutation that only moves unit dims is a reshape.
    if [x.shape[p] for p in perm if x.shape[p] != 1] == [d for d in x.shape if d != 1] and \
            [p for p in perm if x.shape[p] != 1] == sorted(p for p in perm if x.shape[p] != 1):
        return ctx.fn.reshape(x, shape)
    init = ctx.fn.empty(shape, x.dtype)
    return Value(_emit_transpose(ctx, x, init, perm), shape, x.dtype)


def _emit_transpose(ctx: Context, x: Value, init: Value, perm) -> str:
    return ctx.fn.emit(f"linalg.transpose ins({x.name} : {x.type}) outs({init.name} : {init.type}) "
                       f"permutation = [{', '.join(map(str, perm))}]", "tr")


@lowers(aten.permute.default, aten.permute_copy.default)
def _permute(ctx, node, x, perm):
    return transpose(ctx, x, perm)


@lowers(aten.transpose.int, aten.transpose_copy.int)
def _transpose(ctx, node, x, d0, d1):
    perm = list(range(x.rank))
    d0, d1 = normalize_dim(d0, x.rank), normalize_dim(d1, x.rank)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return transpose(ctx, x, perm)


@lowers(aten.t.default)
def _t(ctx, node, x):
    return transpose(ctx, x, [1, 0]) if x.rank == 2 else x


def slice_of(ctx: Context, x: Value, dim: int, start: int, end: int, step: int) -> Value:
    n = x.shape[dim]
    if start is None:
        start = 0
    if end is None or end > n:
        end = n if end is None or end > n else end
    if start < 0:
        start += n
    if end < 0:
        end += n
    start = min(max(start, 0), n)
    end = min(max(end, start), n)
    size = (end - start + step - 1) // step
    offsets = [0] * x.rank
    sizes = list(x.shape)
    strides = [1] * x.rank
    offsets[dim] = start
    sizes[dim] = size
    strides[dim] = step
    if size == n and step == 1:
        return x
    return ctx.fn.extract_slice(x, offsets, sizes, strides)


@lowers(aten.slice.Tensor, aten.slice_copy.Tensor)
def _slice(ctx, node, x, dim=0, start=None, end=None, step=1):
    dim = normalize_dim(dim, x.rank)
    if end == INT64_MAX:
        end = None
    return slice_of(ctx, x, dim, start, end, step)


@lowers(aten.narrow.default)
def _narrow(ctx, node, x, dim, start, length):
    dim = normalize_dim(dim, x.rank)
    return slice_of(ctx, x, dim, start, start + length, 1)


@lowers(aten.select.int, aten.select_copy.int)
def _select(ctx, node, x, dim, index):
    dim = normalize_dim(dim, x.rank)
    if index < 0:
        index += x.shape[dim]
    offsets = [0] * x.rank
    offsets[dim] = index
    sizes = list(x.shape)
    sizes[dim] = 1
    shape = [d for i, d in enumerate(x.shape) if i != dim]
    return ctx.fn.extract_slice(x, offsets, sizes, [1] * x.rank, shape)


@lowers(aten.split_with_sizes.default, aten.split_with_sizes_copy.default)
def _split_with_sizes(ctx, node, x, sizes, dim=0):
    dim = normalize_dim(dim, x.rank)
    out, start = [], 0
    for s in sizes:
        out.append(slice_of(ctx, x, dim, start, start + s, 1))
        start += s
    return tuple(out)


@lowers(aten.split.Tensor, aten.unsafe_split.Tensor)
def _split(ctx, node, x, size, dim=0):
    dim = normalize_dim(dim, x.rank)
    n = x.shape[dim]
    out = []
    for start in range(0, n, size):
        out.append(slice_of(ctx, x, dim, start, min(start + size, n), 1))
    return tuple(out)


@lowers(aten.unbind.int)
def _unbind(ctx, node, x, dim=0):
    dim = normalize_dim(dim, x.rank)
    return tuple(_select(ctx, node, x, dim, i) for i in range(x.shape[dim]))


@lowers(aten.cat.default, aten.concat.default)
def _cat(ctx, node, tensors, dim=0):
    parts = [t for t in tensors if t.numel > 0 or t.rank == ctx.out_meta().shape.__len__()]
    parts = [t for t in parts if t.numel > 0]
    out_shape = ctx.out_shape
    dt = ctx.out_dtype
    dim = normalize_dim(dim, len(out_shape))
    if len(parts) == 1:
        return ctx.cast(parts[0], dt)
    acc = ctx.fn.empty(out_shape, dt)
    offset = 0
    for t in parts:
        t = ctx.cast(t, dt)
        offsets = [0] * len(out_shape)
        offsets[dim] = offset
        acc = ctx.fn.insert_slice(t, acc, offsets, list(t.shape), [1] * len(out_shape))
        offset += t.shape[dim]
    return acc


@lowers(aten.constant_pad_nd.default)
def _pad(ctx, node, x, pad, value=0):
    low = [0] * x.rank
    high = [0] * x.rank
    for i in range(len(pad) // 2):
        d = x.rank - 1 - i
        low[d], high[d] = pad[2 * i], pad[2 * i + 1]
    # Negative pads crop.
    if any(v < 0 for v in low + high):
        offsets = [max(-lo, 0) for lo in low]
        sizes = [x.shape[d] - max(-low[d], 0) - max(-high[d], 0) for d in range(x.rank)]
        x = ctx.fn.extract_slice(x, offsets, sizes, [1] * x.rank)
        low = [max(v, 0) for v in low]
        high = [max(v, 0) for v in high]
    return ctx.fn.pad(x, low, high, value)


@lowers(aten.select_scatter.default)
def _select_scatter(ctx, node, x, src, dim, index):
    dim = normalize_dim(dim, x.rank)
    if index < 0:
        index += x.shape[dim]
    offsets = [0] * x.rank
    offsets[dim] = index
    sizes = list(x.shape)
    sizes[dim] = 1
    return ctx.fn.insert_slice(ctx.cast(src, x.dtype), x, offsets, sizes, [1] * x.rank)


@lowers(aten.slice_scatter.default)
def _slice_scatter(ctx, node, x, src, dim=0, start=None, end=None, step=1):
    dim = normalize_dim(dim, x.rank)
    n = x.shape[dim]
    start = 0 if start is None else (start + n if start < 0 else start)
    offsets = [0] * x.rank
    offsets[dim] = min(start, n)
    strides = [1] * x.rank
    strides[dim] = step
    return ctx.fn.insert_slice(ctx.cast(src, x.dtype), x, offsets, list(src.shape), strides)


@lowers(aten.flip.default)
def _flip(ctx, node, x, dims):
    dims = {normalize_dim(d, x.rank) for d in dims}
    exprs = [f"{x.shape[i] - 1} - d{i}" if i in dims else f"d{i}" for i in range(x.rank)]
    out = OutputSpec(x.shape, x.dtype, [f"d{i}" for i in range(x.rank)])
    return ctx.fn.generic(x.rank, ["parallel"] * x.rank, [(x, exprs)], [out],
                          lambda b, a: [a[0]], "flip")[0]


@lowers(aten.roll.default)
def _roll(ctx, node, x, shifts, dims=()):
    if not dims:
        flat = ctx.fn.reshape(x, (x.numel,))
        return ctx.fn.reshape(_roll1(ctx, flat, shifts[0] if isinstance(shifts, (list, tuple))
                                     else shifts, 0), x.shape)
    for s, d in zip(shifts, dims):
        x = _roll1(ctx, x, s, normalize_dim(d, x.rank))
    return x


def _roll1(ctx, x, shift, dim):
    n = x.shape[dim]
    shift %= n
    if shift == 0:
        return x
    tail = slice_of(ctx, x, dim, n - shift, n, 1)
    head = slice_of(ctx, x, dim, 0, n - shift, 1)
    acc = ctx.fn.empty(x.shape, x.dtype)
    off = [0] * x.rank
    acc = ctx.fn.insert_slice(tail, acc, off, list(tail.shape), [1] * x.rank)
    off[dim] = shift
    return ctx.fn.insert_slice(head, acc, off, list(head.shape), [1] * x.rank)


def _triangle(lower: bool):
    def lower_fn(ctx, node, x, diagonal=0):
        r = x.rank

        def body(b, a):
            i = b.index_cast(b.index(r - 2), "i64")
            j = b.index_cast(b.index(r - 1), "i64")
            k = b.sub(j, i, "i64")
            keep = b.cmp("le" if lower else "ge", k, b.const(diagonal, "i64"), "i64")
            return [b.select(keep, a[0], b.const(0, x.dtype), x.dtype)]
        return map_elementwise(ctx, [x], x.shape, x.dtype, body, "tri")
    return lower_fn


lowers(aten.tril.default)(_triangle(True))
lowers(aten.triu.default)(_triangle(False))


@lowers(aten.repeat.default)
def _repeat(ctx, node, x, repeats):
    k = len(repeats) - x.rank
    xs = [1] * k + list(x.shape)
    x = ctx.fn.reshape(x, xs)
    # Interleave: [r0, s0, r1, s1, ...] then merge pairs.
    inter = []
    for r, s in zip(repeats, xs):
        inter += [r, s]
    y = ctx.fn.reshape(x, [d for pair in zip([1] * len(xs), xs) for d in pair])
    y = map_elementwise(ctx, [y], inter, x.dtype, lambda b, a: [a[0]], "rep")
    return ctx.fn.reshape(y, ctx.out_shape)
