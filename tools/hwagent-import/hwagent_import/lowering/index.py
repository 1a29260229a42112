"""Gathers and scatters.

Gathers (gather, index_select, advanced indexing) are parallel generics
whose body reads the source with `tensor.extract` at a computed index.
Scatters that write each position once at most per index row (scatter of
one-hot rows, as in the cross-entropy gradient) are generics that reduce
over the index row. Accumulating scatters with arbitrary duplicates (the
embedding gradient, index_put with accumulate) are a loop over the indices
adding one row at a time: work proportional to tokens x width, not to
vocabulary x tokens x width as a one-hot contraction would be.

Indices are clamped into range before they address memory (PyTorch raises
on an out-of-range index; a compiled step cannot, and must not read outside
the tensor). hwagent-run checks integer data against the ranges the
manifest records before the first step.
"""

from __future__ import annotations

import torch

from ..mlir import OutputSpec, Value
from . import Context, aten, lowers, normalize_dim



def _clamped_index(b, value: str, dtype: str, size: int) -> str:
    """`value` (an integer tensor element) wrapped for negatives and
    clamped into [0, size) as an index."""
    v = b.cast(value, dtype, "i64")
    neg = b.cmp("lt", v, b.const(0, "i64"), "i64")
    v = b.select(neg, b.add(v, b.const(size, "i64"), "i64"), v, "i64")
    v = b.maximum(v, b.const(0, "i64"), "i64")
    v = b.minimum(v, b.const(size - 1, "i64"), "i64")
    return b.to_index(v, "i64")


def _extract(b, src: Value, coords: list[str]) -> str:
    return b.emit(f"tensor.extract {src.name}[{', '.join(coords)}] : {src.type}")


@lowers(aten.gather.default)
def _gather(ctx: Context, node, x, dim, index, sparse_grad=False):
    dim = normalize_dim(dim, x.rank)
    shape = index.shape
    rank = len(shape)

    def body(b, a):
        coords = []
        for i in range(rank):
            coords.append(_clamped_index(b, a[0], index.dtype, x.shape[dim]) if i == dim
                          else b.index(i))
        return [_extract(b, x, coords)]
    out = OutputSpec(shape, x.dtype, [f"d{i}" for i in range(rank)])
    return ctx.fn.generic(rank, ["parallel"] * rank, [(index, [f"d{i}" for i in range(rank)])],
                          [out], body, "gather")[0]


@lowers(aten.index_select.default)
def _index_select(ctx: Context, node, x, dim, index):
    dim = normalize_dim(dim, x.rank)
    if index.rank == 0:
        index = ctx.fn.reshape(index, (1,))
    shape = tuple(ctx.out_shape)
    rank = len(shape)

    def body(b, a):
        coords = [(_clamped_index(b, a[0], index.dtype, x.shape[dim]) if i == dim
                   else b.index(i)) for i in range(rank)]
        return [_extract(b, x, coords)]
    out = OutputSpec(shape, x.dtype, [f"d{i}" for i in range(rank)])
    return ctx.fn.generic(rank, ["parallel"] * rank, [(index, [f"d{dim}"])], [out], body,
                          "isel")[0]


@lowers(aten.index.Tensor)
def _index(ctx: Context, node, x, indices):
    """Advanced indexing with index tensors on adjacent dims (None elsewhere)."""
    present = [i for i, t in enumerate(indices) if t is not None]
    if not present:
        return x
    if present != list(range(present[0], present[-1] + 1)):
        raise ctx.fail("index tensors on non-adjacent dimensions are not supported")
    for i in present:
        if indices[i].dtype == "i1":
            raise ctx.fail(
                "boolean-mask indexing makes the result's shape depend on the data",
                "use torch.where(mask, x, 0) or multiply by the mask to keep a static shape")
    first = present[0]
    bshape = list(torch.broadcast_shapes(*[indices[i].shape for i in present]))
    nb = len(bshape)
    out_shape = tuple(ctx.out_shape)
    rank = len(out_shape)
    # out dims: x dims before `first`, the broadcast index dims, x dims after.
    operands = []
    for i in present:
        t = indices[i]
        k = nb - t.rank
        exprs = [f"d{first + k + j}" for j, d in enumerate(t.shape) if d == bshape[k + j]]
        if len(exprs) != t.rank:
            # Broadcast unit dims of an index tensor.
            from .elementwise import broadcast_operand
            v, ex = broadcast_operand(ctx, t, bshape)
            t = v
            exprs = [f"d{first + int(e[1:])}" for e in ex]
        operands.append((t, exprs))
    after = x.rank - present[-1] - 1

    def body(b, a):
        coords = [b.index(i) for i in range(first)]
        for n, i in enumerate(present):
            coords.append(_clamped_index(b, a[n], indices[i].dtype, x.shape[i]))
        coords += [b.index(first + nb + j) for j in range(after)]
        return [_extract(b, x, coords)]
    out = OutputSpec(out_shape, x.dtype, [f"d{i}" for i in range(rank)])
    return ctx.fn.generic(rank, ["parallel"] * rank, operands, [out], body, "index")[0]


def _scatter_rowwise(ctx: Context, x: Value, dim: int, index: Value, src, reduce_add: bool):
    """out = x with out[.., index[.., j, ..], ..] = src (or += src) for every
    j: a generic over x's positions reducing over the index row."""
    dim = normalize_dim(dim, x.rank)
    for d in range(x.rank):
        if d != dim and index.shape[d] != x.shape[d]:
            raise ctx.fail("scatter with an index smaller than the target outside `dim` "
                           "is not supported")
    rank = x.rank
    j = f"d{rank}"
    idx_exprs = [j if d == dim else f"d{d}" for d in range(rank)]
    operands = [(index, idx_exprs)]
    if isinstance(src, Value):
        operands.append((ctx.cast(src, x.dtype), idx_exprs))
    out = OutputSpec(x.shape, x.dtype, [f"d{d}" for d in range(rank)], init=x)
    t = x.dtype

    def body(b, a):
        pos = b.index_cast(b.index(dim), "i64")
        hit = b.cmp("eq", b.cast(a[0], index.dtype, "i64"), pos, "i64")
        val = a[1] if isinstance(src, Value) else b.const(src, t)
        acc = a[-1]
        if reduce_add:
            return [b.add(acc, b.select(hit, val, b.const(0, t), t), t)]
        return [b.select(hit, val, acc, t)]
    return ctx.fn.generic(rank + 1, ["parallel"] * rank + ["reduction"], operands, [out], body,
                          "scatter")[0]


@lowers(aten.scatter.value, aten.scatter.src)
def _scatter(ctx: Context, node, x, dim, index, src):
    return _scatter_rowwise(ctx, x, dim, index, src, False)


@lowers(aten.scatter_add.default)
def _scatter_add(ctx: Context, node, x, dim, index, src):
    return _scatter_rowwise(ctx, x, dim, index, src, True)


def scatter_add_rows(ctx: Context, acc: Value, rows: Value, index: Value, skip: int | None) -> Value:
    """acc[index[i], :] += rows[i, :] for every i, in order: an scf.for loop
    of row updates (acc (V, D), rows (N, D), index (N,)); rows whose index is
    `skip` (an embedding's padding_idx) add nothing."""
    from ..mlir import Body
    fn = ctx.fn
    v, width = acc.shape
    n = rows.shape[0]
    t = acc.dtype
    c0, c1, cn = fn.index_const(0), fn.index_const(1), fn.index_const(n)
    res, i, a = fn.fresh("loop"), fn.fresh("i"), fn.fresh("acc")
    row_t = f"tensor<{width}x{t}>"
    loc = f" {fn.location}" if fn.location else ""
    tok = fn.fresh("t")
    scalar = Body(fn)
    row = _clamped_index(scalar, tok, index.dtype, v)
    keep = None
    if skip is not None:
        keep = scalar.cmp("ne", tok, scalar.const(skip, index.dtype), index.dtype)
    cur, src, upd, new = fn.fresh("row"), fn.fresh("row"), fn.fresh("row"), fn.fresh("acc")
    x0, x1 = fn.fresh("a"), fn.fresh("a")
    body = Body(fn)
    s = body.add(x1, x0, t)
    if keep is not None:
        s = body.select(keep, s, x1, t)
    m = "affine_map<(d0) -> (d0)>"
    lines = [f"  {res} = scf.for {i} = {c0} to {cn} step {c1} iter_args({a} = {acc.name}) "
             f"-> ({acc.type}) {{",
             f"    {tok} = tensor.extract {index.name}[{i}] : {index.type}"]
    lines += [f"    {line}" for line in scalar.lines]
    lines += [
        f"    {cur} = tensor.extract_slice {a}[{row}, 0] [1, {width}] [1, 1] : "
        f"{acc.type} to {row_t}",
        f"    {src} = tensor.extract_slice {rows.name}[{i}, 0] [1, {width}] [1, 1] : "
        f"{rows.type} to {row_t}",
        f"    {upd} = linalg.generic {{indexing_maps = [{m}, {m}], "
        f"iterator_types = [\"parallel\"]}} ins({src} : {row_t}) outs({cur} : {row_t}) {{",
        f"    ^bb0({x0}: {t}, {x1}: {t}):"]
    lines += [f"      {line}" for line in body.lines]
    lines += [f"      linalg.yield {s} : {t}",
              f"    }} -> {row_t}",
              f"    {new} = tensor.insert_slice {upd} into {a}[{row}, 0] [1, {width}] "
              f"[1, 1] : {row_t} into {acc.type}",
              f"    scf.yield {new} : {acc.type}",
              f"  }}{loc}"]
    fn.lines.extend(lines)
    fn._count("scf.for")
    return Value(res, acc.shape, t)


@lowers(aten.embedding_dense_backward.default)
def _embedding_backward(ctx: Context, node, grad, indices, num_weights, padding_idx,
                        scale_grad_by_freq):
    if scale_grad_by_freq:
        raise ctx.fail("scale_grad_by_freq=True is not supported",
                       "construct the nn.Embedding with scale_grad_by_freq=False")
    dwidth = grad.shape[-1]
    n = indices.numel
    rows = ctx.fn.reshape(grad, (n, dwidth))
    idx = ctx.fn.reshape(indices, (n,))
    acc = ctx.fn.full((num_weights, dwidth), grad.dtype, 0)
    skip = padding_idx if padding_idx is not None and padding_idx >= 0 else None
    return scatter_add_rows(ctx, acc, rows, idx, skip)


@lowers(aten.index_put.default, aten._index_put_impl.default)
def _index_put(ctx: Context, node, x, indices, values, accumulate=False, unsafe=False):
    present = [i for i, t in enumerate(indices) if t is not None]
    if present != [0] or x.rank < 1:
        raise ctx.fail("index_put is supported with one index tensor on dimension 0")
    idx = indices[0]
    if idx.dtype == "i1":
        raise ctx.fail("boolean-mask assignment makes the update depend on the data",
                       "use torch.where(mask, value, x)")
    n = idx.numel
    width = x.numel // x.shape[0]
    flat = ctx.fn.reshape(x, (x.shape[0], width))
    idx = ctx.fn.reshape(idx, (n,))
    from .elementwise import map_elementwise
    vals = ctx.cast(values, x.dtype)
    full_shape = (n,) + x.shape[1:]
    if vals.shape != full_shape:
        vals = map_elementwise(ctx, [vals], full_shape, x.dtype, lambda b, a: [a[0]], "bc")
    rows = ctx.fn.reshape(vals, (n, width))
    if not accumulate:
        # Overwrite: zero the addressed rows first, then add (the last write
        # wins only for unique indices, as PyTorch promises).
        raise ctx.fail("index_put without accumulate is not supported",
                       "use scatter or torch.where")
    return ctx.fn.reshape(scatter_add_rows(ctx, flat, rows, idx, None), x.shape)


@lowers(aten.index_add.default)
def _index_add(ctx: Context, node, x, dim, index, source, alpha=1):
    """x with source's slices added at `index` along `dim` (the gradient of
    index_select): the scatter loop on `dim` moved to the front."""
    from .shape import transpose
    from .elementwise import map_elementwise
    alpha = node.kwargs.get("alpha", alpha)
    dim = normalize_dim(dim, x.rank)
    perm = [dim] + [d for d in range(x.rank) if d != dim]
    inv = [perm.index(d) for d in range(x.rank)]
    xt = transpose(ctx, x, perm)
    st = transpose(ctx, ctx.cast(source, x.dtype), perm)
    if alpha != 1:
        t = x.dtype
        st = map_elementwise(ctx, [st], st.shape, t, lambda b, a: [b.mul(a[0], b.const(alpha, t), t)])
    width = xt.numel // xt.shape[0]
    if index.rank == 0:
        index = ctx.fn.reshape(index, (1,))
    acc = ctx.fn.reshape(xt, (xt.shape[0], width))
    rows = ctx.fn.reshape(st, (st.shape[0], width))
    r = scatter_add_rows(ctx, acc, rows, index, None)
    return transpose(ctx, ctx.fn.reshape(r, xt.shape), inv)
