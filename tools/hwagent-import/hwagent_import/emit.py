"""From a captured FX graph to one func.func of MLIR text.

Walks the graph in order and calls the lowering table for every ATen node.
Transposes are lowered lazily: a product that reads one folds it into its
indexing maps, and the transpose is only materialized for other users.
Each op carries the location of the PyTorch code it came from
(`loc("layer1.0.conv1"("model.py":12:0))`).
"""

from __future__ import annotations

import json
import operator
import os
from dataclasses import dataclass, field
from typing import Any, Sequence

import torch
import torch.fx as fx

from .capture import Captured, Source
from .errors import ImportError_
from .lowering import LOWERINGS, Context, compute_meta, dtype_of, is_supported
from .lowering.elementwise import Deferred
from .lowering.shape import transpose as emit_transpose
from .mlir import FunctionWriter, Value

aten = torch.ops.aten

_TRANSPOSES = {aten.transpose.int, aten.t.default, aten.permute.default}


@dataclass(frozen=True)
class Lazy(Value):
    """A transpose not yet written: its source and permutation. It stands
    for the transposed value (shape, dtype) wherever a lowering folds it into
    an indexing map; anything else materializes it (Context.value)."""

    source: Value = None
    perm: tuple = ()
    node: fx.Node = None
    unwritten = True


def lazy_transpose(src: Value, perm, node: fx.Node) -> Lazy:
    shape = tuple(src.shape[p] for p in perm)
    return Lazy("<unwritten transpose>", shape, src.dtype, src, tuple(perm), node)


@dataclass
class ArgSpec:
    name: str           # hwagent.name
    attrs: dict         # further attributes: {"hwagent.role": "parameter", ...}


@dataclass
class Emitted:
    text: str
    op_counts: dict
    unsupported: list = field(default_factory=list)


def _quote(s: str) -> str:
    return json.dumps(s)


def _attr_dict(spec: ArgSpec) -> str:
    items = [f"hwagent.name = {_quote(spec.name)}"]
    for k, v in spec.attrs.items():
        if v is True:
            items.append(k)
        elif isinstance(v, int):
            items.append(f"{k} = {v}")
        else:
            items.append(f"{k} = {_quote(str(v))}")
    return "{" + ", ".join(items) + "}"


class _GraphContext(Context):
    def __init__(self, fn, metas, graph_name, env):
        super().__init__(fn, metas, graph_name)
        self.env = env
        self.written: dict = {}

    def value(self, arg):
        v = self.env[arg]
        if isinstance(v, Deferred):
            mat = self.materialize(v)
            self.env[arg] = mat
            return mat
        if isinstance(v, Lazy):
            mat = self.materialize(v)
            self.env[arg] = mat
            return mat
        return v

    def materialize(self, lazy) -> Value:
        """An unwritten transpose or deferred mask written out, once."""
        if isinstance(lazy, Deferred):
            return self._write_deferred(lazy)
        current = self.env.get(lazy.node)
        if current is not None and not isinstance(current, Lazy):
            return current
        saved, self.node = self.node, lazy.node
        try:
            mat = emit_transpose(self, lazy.source, list(lazy.perm))
        finally:
            self.node = saved
        if current is lazy:
            self.env[lazy.node] = mat
        return mat

    def _write_deferred(self, d) -> Value:
        # Keyed by id() with the Deferred kept alive beside its tensor: a
        # freed Deferred's id is reused by the next one.
        hit = self.written.get(id(d))
        if hit is None:
            hit = (d, _deferred_writer(self, d))
            self.written[id(d)] = hit
        return hit[1]

    def look_through_transpose(self, arg, rank: int):
        """(source, True) when `arg` is a not-yet-written transpose of the
        last two dims; (its value, False) otherwise."""
        v = self.env.get(arg) if isinstance(arg, fx.Node) else None
        swap = list(range(rank - 2)) + [rank - 1, rank - 2]
        if isinstance(v, Lazy) and list(v.perm) == swap and v.source.rank == rank:
            return v.source, True
        return self.value(arg), False


def _deferred_writer(ctx, d: "Deferred") -> Value:
    from .lowering.elementwise import map_elementwise
    return map_elementwise(ctx, [d], d.shape, d.dtype, lambda b, a: [a[0]], "mask")


def location(src: Source | None, base_dir: str | None) -> str | None:
    if src is None:
        return None
    parts = []
    file_loc = None
    if src.file is not None:
        path = src.file
        if base_dir is not None:
            rel = os.path.relpath(path, base_dir)
            if not rel.startswith(".."):
                path = rel
        file_loc = f"{_quote(path)}:{src.line}:0"
    name = src.scope or ""
    tag = {"forward": "", "eval": "", "loss": "loss", "backward": "backward",
           "update": "update"}.get(src.phase, "")
    if tag:
        name = f"{name} {tag}".strip() if name else tag
    if name and file_loc:
        parts = f"loc({_quote(name)}({file_loc}))"
    elif name:
        parts = f"loc({_quote(name)})"
    elif file_loc:
        parts = f"loc({file_loc})"
    else:
        return None
    return parts


def unsupported_ops(gm: fx.GraphModule) -> list[fx.Node]:
    return [n for n in gm.graph.nodes
            if n.op == "call_function" and not is_supported(n.target)]


RNG_RESULT = -1  # a result index: the random-number counter, incremented


def emit_function(name: str, cap: Captured, args: Sequence[ArgSpec],
                  results: Sequence[tuple[int, ArgSpec]], base_dir: str | None,
                  rng: tuple[int, ArgSpec] | None = None, rng_seed: int = 0) -> Emitted:
    """`args` names every placeholder in order; `results` lists (output
    index, spec) for the values the function returns, in order. With `rng`
    (position, spec), the function takes the random-number counter as an
    extra argument at that position (lowering/misc.py); RNG_RESULT in
    `results` returns it incremented."""
    gm = cap.graph
    metas = compute_meta(gm, _example_args(cap))
    fn = FunctionWriter(name)
    env: dict[fx.Node, Any] = {}
    ctx = _GraphContext(fn, metas, name, env)
    ctx.rng = None
    ctx.rng_seed = rng_seed
    sites = iter(range(1 << 30))
    ctx.next_random_site = lambda: next(sites)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(args):
        raise AssertionError(f"{len(placeholders)} placeholders for {len(args)} names")
    arg_values = []
    for i, (n, spec) in enumerate(zip(placeholders, args)):
        m = metas[n]
        v = Value(f"%arg{i}", m.shape, m.dtype)
        env[n] = v
        arg_values.append((v, _attr_dict(spec)))
    if rng is not None:
        ctx.rng = Value("%rng", (), "i64")
        arg_values.insert(rng[0], (ctx.rng, _attr_dict(rng[1])))
    outputs = None
    for n in gm.graph.nodes:
        if n.op == "placeholder":
            continue
        if n.op == "output":
            outputs = n.args[0]
            break
        if n.op == "get_attr":
            env[n] = _constant(fn, gm, n)
            continue
        if n.op != "call_function":
            raise ImportError_(f"unexpected graph node {n.op} {n.target}")
        ctx.node = n
        fn.location = location(n.meta.get("hwagent_source"), base_dir)
        if n.target is operator.getitem:
            base = env[n.args[0]]
            env[n] = base[n.args[1]]
            continue
        if n.target in _TRANSPOSES:
            inner = env.get(n.args[0])
            src = inner.source if isinstance(inner, Lazy) else ctx.value(n.args[0])
            if n.target is aten.t.default:
                perm = [1, 0] if src.rank == 2 else [0]
            elif n.target is aten.transpose.int:
                d0, d1 = (d % max(src.rank, 1) for d in n.args[1:3])
                perm = list(range(src.rank))
                perm[d0], perm[d1] = perm[d1], perm[d0]
            else:
                perm = [p % src.rank for p in n.args[1]]
            if isinstance(inner, Lazy):
                # A transpose of a transpose: one permutation of the source.
                perm = [inner.perm[p] for p in perm]
            env[n] = src if list(perm) == list(range(src.rank)) else lazy_transpose(src, perm, n)
            continue
        folded = _through_lazy(ctx, n)
        if folded is not None:
            env[n] = folded
            continue
        lower = LOWERINGS.get(n.target)
        if lower is None:
            raise _unsupported(n)
        lazy = getattr(lower, "lazy_args", False)
        a = _resolve(ctx, n.args, lazy)
        kw = _resolve(ctx, dict(n.kwargs), lazy)
        if n.target not in _KEEP_DTYPE:
            kw.pop("dtype", None)
        for drop in ("layout", "device", "pin_memory", "memory_format", "non_blocking",
                     "generator"):
            kw.pop(drop, None)
        try:
            out = lower(ctx, n, *a, **kw)
        except ImportError_:
            raise
        except Exception as e:  # a lowering bug: say which op, where
            if os.environ.get("HWAGENT_IMPORT_DEBUG"):
                raise
            src = n.meta.get("hwagent_source")
            raise ImportError_(f"internal error lowering {n.target}: {type(e).__name__}: {e}",
                               src.where() if src else None,
                               "please report this with the model") from e
        _check_shape(ctx, n, out)
        env[n] = out
    fn.location = None
    flat_out = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    result_values = []
    for index, spec in results:
        if index == RNG_RESULT:
            from .lowering.elementwise import map_elementwise
            ctx.node = None
            nxt = map_elementwise(ctx, [ctx.rng], (), "i64",
                                  lambda b, a: [b.add(a[0], b.const(1, "i64"), "i64")], "rng")
            result_values.append((nxt, _attr_dict(spec)))
            continue
        node = flat_out[index]
        v = ctx.value(node) if isinstance(node, fx.Node) else None
        if v is None:
            raise ImportError_(f"result {spec.name} is not a tensor")
        result_values.append((v, _attr_dict(spec)))
    text = fn.text(arg_values, result_values)
    return Emitted(text, dict(fn.op_counts))


_VIEWS = {aten.view.default, aten._reshape_alias.default, aten._unsafe_view.default,
          aten.reshape.default, aten.clone.default, aten.alias.default, aten.detach.default,
          aten.expand.default}


def _through_lazy(ctx: _GraphContext, n: fx.Node) -> Lazy | None:
    """A view of a not-yet-written transpose of the last two dims that only
    reshapes the leading dims stays a transpose: the view moves onto the
    source (attention's `k.transpose(-2, -1)` viewed as (B*H, d, T))."""
    if n.target not in _VIEWS or not n.args or not isinstance(n.args[0], fx.Node):
        return None
    lazy = ctx.env.get(n.args[0])
    if not isinstance(lazy, Lazy):
        return None
    src = lazy.source
    r = src.rank
    if r < 2 or list(lazy.perm) != list(range(r - 2)) + [r - 1, r - 2]:
        return None
    out = ctx.metas.get(n)
    if not hasattr(out, "shape") or out.dtype != src.dtype:
        return None
    shape = tuple(out.shape)
    tshape = tuple(src.shape[p] for p in lazy.perm)
    if len(shape) < 2 or shape[-2:] != tshape[-2:]:
        return None
    if n.target is aten.expand.default and shape != tshape:
        return None
    import math as _m
    if _m.prod(shape[:-2]) != _m.prod(tshape[:-2]):
        return None
    new_src_shape = shape[:-2] + (src.shape[-2], src.shape[-1])
    saved, ctx.node = ctx.node, n
    try:
        moved = ctx.fn.reshape(src, new_src_shape)
    finally:
        ctx.node = saved
    rank = len(new_src_shape)
    return lazy_transpose(moved, list(range(rank - 2)) + [rank - 1, rank - 2], n)


_KEEP_DTYPE = {aten.sum.dim_IntList, aten.mean.dim, aten.cumsum.default, aten.prod.dim_int}


def _constant(fn: FunctionWriter, gm: fx.GraphModule, n: fx.Node) -> Value:
    """A tensor the trace captured as a constant, as a dense literal."""
    t = gm
    for part in str(n.target).split("."):
        t = getattr(t, part)
    t = t.detach().contiguous()
    dtype = dtype_of(t.dtype)
    values = t.flatten().tolist()
    return fn.dense(values, tuple(t.shape), dtype)


def _resolve(ctx: _GraphContext, obj, lazy: bool):
    if isinstance(obj, fx.Node):
        if lazy:
            return ctx.env[obj]  # a Lazy stays one: the lowering folds it
        return ctx.value(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_resolve(ctx, o, lazy) for o in obj)
    if isinstance(obj, dict):
        return {k: _resolve(ctx, v, lazy) for k, v in obj.items()}
    if isinstance(obj, torch.dtype):
        return dtype_of(obj)
    return obj


def _check_shape(ctx, n: fx.Node, out) -> None:
    m = ctx.metas.get(n)
    if isinstance(out, Value) and hasattr(m, "shape"):
        if tuple(out.shape) != tuple(m.shape) or out.dtype != m.dtype:
            raise ImportError_(
                f"internal error lowering {n.target}: built {out.type}, PyTorch computed "
                f"{list(m.shape)} {m.dtype}")


def _unsupported(n: fx.Node) -> ImportError_:
    src = n.meta.get("hwagent_source")
    return ImportError_(f"unsupported op {n.target}" +
                        (f" (in the {src.phase} pass)" if src else ""),
                        src.where() if src else None, advice(n.target))


def advice(target) -> str | None:
    name = str(target)
    if any(k in name for k in ("nonzero", "masked_select", "unique", "nonzero_static")):
        return ("its result's shape depends on the data; a compiled step needs static shapes "
                "(use torch.where or a mask multiply instead)")
    if "_local_scalar_dense" in name or "item" in name:
        return "a tensor value is read into Python (data-dependent control flow)"
    if "lstm" in name or "gru" in name or "rnn" in name:
        return "recurrent layers are unrolled at the example batch's sequence length"
    return ("the importer has no lowering for it; write the layer with supported ops, or "
            "file an issue naming the op")


def _example_args(cap: Captured):
    return [e.value for e in cap.state if e.kind != "rng"] + list(cap.data)
