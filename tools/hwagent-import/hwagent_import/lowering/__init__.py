"""ATen ops to linalg-on-tensors: one table, one context.

`LOWERINGS` maps each ATen overload the importer handles to a function
`(ctx, node, *args, **kwargs) -> Value | tuple[Value, ...]`; arguments that
were FX nodes arrive as `Value`s, Python scalars and lists as they are.
Output shapes and dtypes come from running the graph once on the example
batch (`Meta`): each lowering builds what PyTorch computed, and the context
checks that the shape it built is the one PyTorch produced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import torch
import torch.fx as fx

from ..errors import ImportError_
from ..mlir import FunctionWriter, Value, is_float

LOWERINGS: dict[Any, Callable] = {}


class _Packet:
    def __init__(self, packet):
        self._packet = packet

    def __getattr__(self, overload):
        try:
            return getattr(self._packet, overload)
        except AttributeError:
            return None  # an overload this torch version lacks


class _Ops:
    """torch.ops.aten where a missing op or overload is None, not an error:
    the table names overloads of newer releases too."""

    def __getattr__(self, name):
        try:
            return _Packet(getattr(torch.ops.aten, name))
        except (AttributeError, RuntimeError):
            return _Packet(object())


aten = _Ops()

DTYPES = {
    torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8",
    torch.uint8: "i8", torch.bool: "i1",
}
TORCH_DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
                "bf16": torch.bfloat16, "i64": torch.int64, "i32": torch.int32,
                "i16": torch.int16, "i8": torch.int8, "i1": torch.bool}


def dtype_of(t: torch.dtype) -> str:
    if t not in DTYPES:
        raise ImportError_(f"dtype {t} has no MLIR element type here")
    return DTYPES[t]


def lowers(*ops):
    def register(fn):
        for op in ops:
            if op is not None:
                LOWERINGS[op] = fn
        return fn
    return register


@dataclass(frozen=True)
class Meta:
    shape: tuple[int, ...]
    dtype: str


def _meta_of(value) -> Any:
    if isinstance(value, torch.Tensor):
        return Meta(tuple(value.shape), dtype_of(value.dtype))
    if isinstance(value, (tuple, list)):
        return [_meta_of(v) for v in value]
    return value


def compute_meta(gm: fx.GraphModule, args) -> dict[fx.Node, Any]:
    """Every node's output shape and dtype, by running the graph once."""
    metas: dict[fx.Node, Any] = {}

    class Recorder(fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            metas[n] = _meta_of(out)
            return out

    with torch.no_grad():
        Recorder(gm).run(*args)
    return metas


class Context:
    """State shared by the lowerings of one function."""

    def __init__(self, fn: FunctionWriter, metas: dict, graph_name: str):
        self.fn = fn
        self.metas = metas
        self.node: fx.Node | None = None
        self.graph_name = graph_name

    # The node being lowered: its PyTorch output shape and dtype.
    def out_meta(self, index: int | None = None) -> Meta:
        m = self.metas[self.node]
        if index is not None:
            m = m[index]
        return m

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.out_meta().shape

    @property
    def out_dtype(self) -> str:
        return self.out_meta().dtype

    def fail(self, message: str, hint: str | None = None) -> ImportError_:
        src = self.node.meta.get("hwagent_source") if self.node is not None else None
        return ImportError_(f"{self.node.target}: {message}", src.where() if src else None, hint)

    # Scalars that PyTorch "wraps" (a Python number in a tensor op).
    def scalar_tensor(self, value, dtype: str) -> Value:
        return self.fn.full((), dtype, value)

    def materialize(self, x: Value) -> Value:
        return x  # the graph context writes out unwritten transposes

    def cast(self, x: Value, dtype: str) -> Value:
        if getattr(x, "unwritten", False):
            x = self.materialize(x)
        if x.dtype == dtype:
            return x
        from .elementwise import map_elementwise
        return map_elementwise(self, [x], x.shape, dtype, lambda b, a: [b.cast(a[0], x.dtype, dtype)])


def normalize_dim(dim: int, rank: int) -> int:
    if rank == 0 and dim in (0, -1):
        return 0
    if dim < 0:
        dim += rank
    return dim


def result_dtype(*operands) -> str:
    """torch.result_type over Values and Python scalars."""
    probes = []
    for o in operands:
        if isinstance(o, Value):
            t = TORCH_DTYPES[o.dtype]
            probes.append(torch.empty((0,) if o.rank else (), dtype=t))
        elif isinstance(o, bool):
            probes.append(o)
        elif isinstance(o, (int, float)):
            probes.append(o)
    t = probes[0]
    if len(probes) == 1:
        return dtype_of(t.dtype) if isinstance(t, torch.Tensor) else dtype_of(
            torch.tensor(t).dtype if not isinstance(t, float) else torch.get_default_dtype())
    dt = torch.result_type(probes[0], probes[1])
    for p in probes[2:]:
        dt = torch.promote_types(dt, torch.result_type(p, p) if not isinstance(p, torch.Tensor)
                                 else p.dtype)
    return dtype_of(dt)


# Register every lowering module.
from . import elementwise, creation, reduction, shape, contraction, pool, index, misc  # noqa: E402,F401


def is_supported(target) -> bool:
    import operator
    return target in LOWERINGS or target is operator.getitem


def float_or_raise(ctx: Context, v: Value) -> None:
    if not is_float(v.dtype):
        raise ctx.fail(f"expects a floating-point tensor, got {v.dtype}")


def prod(xs) -> int:
    return math.prod(xs)
