"""Elementwise ATen ops: one linalg.generic each, broadcasting by indexing maps.

A broadcast operand's unit dimensions are collapsed away (a free reshape),
so every indexing map is a projected permutation: the form the fusion,
vectorization and the ANE legality rules expect. Arithmetic happens in the
op's result dtype with PyTorch's roundings: `add(a, b, alpha)` is one fused
multiply-add as in ATen's vectorized kernel, a Python scalar is rounded to
the tensor's dtype, comparisons of floats are ordered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from ..mlir import Body, OutputSpec, Value, is_float
from . import LOWERINGS, Context, aten, lowers, result_dtype



def broadcast_operand(ctx: Context, x: Value, out_shape: Sequence[int]) -> tuple[Value, list[str]]:
    """`x` reshaped to drop its broadcast unit dims, and its indexing exprs.
    A not-yet-written transpose of the output's shape is read through its
    source with permuted indexing maps (no transposed copy)."""
    source, perm = getattr(x, "source", None), getattr(x, "perm", None)
    if source is not None:
        if tuple(x.shape) == tuple(out_shape):
            inverse = [perm.index(i) for i in range(len(perm))]
            return source, [f"d{inverse[i]}" for i in range(source.rank)]
        x = ctx.materialize(x)
    k = len(out_shape) - x.rank
    if k < 0:
        raise ctx.fail(f"cannot broadcast {list(x.shape)} to {list(out_shape)}")
    kept = []
    for i, d in enumerate(x.shape):
        o = out_shape[i + k]
        if d == o:
            kept.append(i)
        elif d != 1:
            raise ctx.fail(f"cannot broadcast {list(x.shape)} to {list(out_shape)}")
    exprs = [f"d{i + k}" for i in kept]
    if len(kept) == x.rank:
        return x, exprs
    groups: list[list[int]] = []
    pending: list[int] = []
    for i in range(x.rank):
        pending.append(i)
        if i in kept:
            groups.append(pending)
            pending = []
    if pending and groups:
        groups[-1].extend(pending)
    shape = [x.shape[next(j for j in g if j in kept)] for g in groups]
    return ctx.fn.collapse(x, groups, shape), exprs


@dataclass(frozen=True)
class Deferred(Value):
    """An elementwise result not yet written: a mask (i1) every consumer of
    which is elementwise folds its computation into its own body, so the
    mask never exists as a tensor -- as a hand-written ReLU gradient
    compares inside its select. Materialized (Context.value) otherwise."""

    leaves: tuple = ()
    compute: Callable = None  # (Body, leaf scalars) -> scalar
    unwritten = True


def _deferrable(ctx: Context) -> bool:
    node = ctx.node
    return node is not None and bool(node.users) and all(
        getattr(LOWERINGS.get(u.target), "lazy_args", False) for u in node.users)


def map_elementwise(ctx: Context, inputs: Sequence[Value], out_shape: Sequence[int], out_dtype: str,
                    body: Callable[[Body, list[str]], list[str]], hint: str = "w") -> Value:
    """A parallel generic over `out_shape`; `body` gets one scalar per input.
    A Deferred input of the output's shape is computed inside the body from
    its own inputs."""
    out_shape = tuple(out_shape)
    leaves: list[Value] = []
    plan = []  # per input: ("leaf", index) or ("deferred", Deferred, indices)

    def add_leaf(v: Value) -> int:
        leaves.append(v)
        return len(leaves) - 1

    def flatten(x):
        if isinstance(x, Deferred):
            if tuple(x.shape) == out_shape:
                return ("deferred", x, [flatten(leaf) for leaf in x.leaves])
            x = ctx.materialize(x)
        return ("leaf", add_leaf(x))

    for x in inputs:
        plan.append(flatten(x))
    operands = [broadcast_operand(ctx, v, out_shape) for v in leaves]

    def evaluate(b, item, args):
        if item[0] == "leaf":
            return args[item[1]]
        return item[1].compute(b, [evaluate(b, sub, args) for sub in item[2]])

    def full_body(b, args):
        return body(b, [evaluate(b, item, args) for item in plan])

    rank = len(out_shape)
    out = OutputSpec(out_shape, out_dtype, [f"d{i}" for i in range(rank)])
    res = ctx.fn.generic(rank, ["parallel"] * rank, operands, [out],
                         lambda b, args: full_body(b, args[:len(leaves)]), hint)
    return res[0]


def _split(args) -> tuple[list[Value], list]:
    values = [a for a in args if isinstance(a, Value)]
    return values, list(args)


def folds_transposes(lower):
    """Marks a lowering whose tensor operands only reach `elementwise` /
    `map_elementwise`: it may receive not-yet-written transposes."""
    lower.lazy_args = True
    return lower


def elementwise(ctx: Context, operands: Sequence, compute: str, out_dtype: str,
                fn: Callable[[Body, list[str], str], str]) -> Value:
    """`operands` are Values or Python scalars; every operand is converted
    to `compute`, `fn(b, scalars, compute)` gives the result, converted to
    `out_dtype`."""
    tensors = [o for o in operands if isinstance(o, Value)]

    def body(b: Body, args: list[str]) -> list[str]:
        it = iter(args)
        scalars = []
        for o in operands:
            if isinstance(o, Value):
                scalars.append(b.cast(next(it), o.dtype, compute))
            else:
                scalars.append(b.const(o, compute))
        r = fn(b, scalars, compute)
        result_type = out_dtype if _is_predicate(fn) else compute
        return [b.cast(r, result_type, out_dtype)]

    if out_dtype == "i1" and _deferrable(ctx):
        return Deferred("<deferred mask>", tuple(ctx.out_shape), "i1", tuple(tensors),
                        lambda b, args: body(b, args)[0])
    return map_elementwise(ctx, tensors, ctx.out_shape, out_dtype, body)


def _is_predicate(fn) -> bool:
    return getattr(fn, "predicate", False)


def predicate(fn):
    fn.predicate = True
    return fn


def _unary(fn: Callable[[Body, str, str], str]):
    def lower(ctx: Context, node, x, *rest, **kw):
        return elementwise(ctx, [x], ctx.out_dtype, ctx.out_dtype, lambda b, s, t: fn(b, s[0], t))
    return lower


def _float_unary(name: str):
    return _unary(lambda b, x, t: b.math(name, x, t))


for _op, _name in [(aten.exp, "exp"), (aten.log, "log"), (aten.sqrt, "sqrt"),
                   (aten.rsqrt, "rsqrt"), (aten.tanh, "tanh"), (aten.erf, "erf"),
                   (aten.sin, "sin"), (aten.cos, "cos"), (aten.log1p, "log1p"),
                   (aten.expm1, "expm1"), (aten.log2, "log2"), (aten.floor, "floor"),
                   (aten.ceil, "ceil"), (aten.trunc, "trunc"), (aten.atan, "atan"),
                   (aten.round, "roundeven"), (aten.exp2, "exp2"), (aten.log10, "log10")]:
    lowers(_op.default)(_float_unary(_name))


@lowers(aten.neg.default)
def _neg(ctx, node, x):
    return elementwise(ctx, [x], x.dtype, x.dtype, lambda b, s, t: b.neg(s[0], t))


@lowers(aten.abs.default)
def _abs(ctx, node, x):
    if is_float(x.dtype):
        return elementwise(ctx, [x], x.dtype, x.dtype, lambda b, s, t: b.math("absf", s[0], t))
    return elementwise(ctx, [x], x.dtype, x.dtype, lambda b, s, t: b.math("absi", s[0], t))


@lowers(aten.reciprocal.default)
def _reciprocal(ctx, node, x):
    t = ctx.out_dtype
    return elementwise(ctx, [x], t, t, lambda b, s, t: b.div(b.const(1.0, t), s[0], t))


@lowers(aten.sigmoid.default)
def _sigmoid(ctx, node, x):
    # ATen's vectorized kernel: (1 + exp(-x)).reciprocal()
    def fn(b, s, t):
        one = b.const(1.0, t)
        e = b.math("exp", b.neg(s[0], t), t)
        return b.div(one, b.add(one, e, t), t)
    return elementwise(ctx, [x], ctx.out_dtype, ctx.out_dtype, fn)


@lowers(aten.relu.default)
def _relu(ctx, node, x):
    # clamp_min(x, 0): NaN stays NaN, as in ATen.
    return elementwise(ctx, [x], x.dtype, x.dtype,
                       lambda b, s, t: b.maximum(s[0], b.const(0, t), t))


@lowers(aten.sign.default, aten.sgn.default)
def _sign(ctx, node, x):
    def fn(b, s, t):
        zero = b.const(0, t)
        pos = b.cast(b.cmp("gt", s[0], zero, t), "i1", t)
        neg = b.cast(b.cmp("lt", s[0], zero, t), "i1", t)
        return b.sub(pos, neg, t)
    return elementwise(ctx, [x], x.dtype, x.dtype, fn)


def _binary(fn: Callable[[Body, str, str, str], str]):
    def lower(ctx: Context, node, a, b_, *rest, **kw):
        t = ctx.out_dtype
        return elementwise(ctx, [a, b_], t, t, lambda b, s, ty: fn(b, s[0], s[1], ty))
    return lower


def _add_lowering(sign: float):
    def lower(ctx: Context, node, a, b_, alpha=1):
        alpha = node.kwargs.get("alpha", alpha)
        t = ctx.out_dtype
        if alpha == 1:
            if sign > 0:
                return elementwise(ctx, [a, b_], t, t, lambda b, s, ty: b.add(s[0], s[1], ty))
            return elementwise(ctx, [a, b_], t, t, lambda b, s, ty: b.sub(s[0], s[1], ty))
        # ATen: vec::fmadd(other, alpha, self) -- one rounding.
        return elementwise(ctx, [a, b_], t, t,
                           lambda b, s, ty: b.fma(s[1], b.const(sign * alpha, ty), s[0], ty))
    return lower


lowers(aten.add.Tensor, aten.add.Scalar)(folds_transposes(_add_lowering(1.0)))
lowers(aten.sub.Tensor, aten.sub.Scalar)(folds_transposes(_add_lowering(-1.0)))
@lowers(aten.mul.Tensor, aten.mul.Scalar)
@folds_transposes
def _mul(ctx: Context, node, a, b_):
    t = ctx.out_dtype
    # x * 1 (the beta and alpha of decomposed addmm): the value itself.
    for v, s in ((a, b_), (b_, a)):
        if isinstance(v, Value) and not isinstance(s, Value) and s == 1 and v.dtype == t \
                and v.shape == tuple(ctx.out_shape):
            return v
    return elementwise(ctx, [a, b_], t, t, lambda b, s, ty: b.mul(s[0], s[1], ty))
lowers(aten.maximum.default)(_binary(lambda b, x, y, t: b.maximum(x, y, t)))
lowers(aten.minimum.default)(_binary(lambda b, x, y, t: b.minimum(x, y, t)))
lowers(aten.atan2.default)(_binary(lambda b, x, y, t: b.math2("atan2", x, y, t)))
lowers(aten.fmod.Tensor, aten.fmod.Scalar)(_binary(lambda b, x, y, t: b.rem(x, y, t)))


@lowers(aten.div.Tensor, aten.div.Scalar, aten.div.Tensor_mode, aten.div.Scalar_mode)
@folds_transposes
def _div(ctx, node, a, b_, rounding_mode=None):
    rounding_mode = node.kwargs.get("rounding_mode", rounding_mode)
    t = ctx.out_dtype
    if rounding_mode is None:
        return elementwise(ctx, [a, b_], t, t, lambda b, s, ty: b.div(s[0], s[1], ty))
    if is_float(t):
        fn = "trunc" if rounding_mode == "trunc" else "floor"
        return elementwise(ctx, [a, b_], t, t,
                           lambda b, s, ty: b.math(fn, b.div(s[0], s[1], ty), ty))
    if rounding_mode == "trunc":
        return elementwise(ctx, [a, b_], t, t, lambda b, s, ty: b.emit(
            f"arith.divsi {s[0]}, {s[1]} : {ty}"))
    return elementwise(ctx, [a, b_], t, t, lambda b, s, ty: b.emit(
        f"arith.floordivsi {s[0]}, {s[1]} : {ty}"))


@lowers(aten.remainder.Tensor, aten.remainder.Scalar)
def _remainder(ctx, node, a, b_):
    t = ctx.out_dtype

    def fn(b, s, ty):
        # Python's modulo: the result takes the divisor's sign.
        r = b.rem(s[0], s[1], ty)
        zero = b.const(0, ty)
        nonzero = b.cmp("ne", r, zero, ty)
        diff_sign = b.logical("xori", b.cmp("lt", r, zero, ty), b.cmp("lt", s[1], zero, ty))
        fix = b.logical("andi", nonzero, diff_sign)
        return b.select(fix, b.add(r, s[1], ty), r, ty)
    return elementwise(ctx, [a, b_], t, t, fn)


@lowers(aten.pow.Tensor_Scalar)
def _pow_scalar(ctx, node, x, e):
    t = ctx.out_dtype
    # ATen's pow_tensor_scalar_optimized_kernel special cases.
    if e == 2:
        return elementwise(ctx, [x], t, t, lambda b, s, ty: b.mul(s[0], s[0], ty))
    if e == 3:
        return elementwise(ctx, [x], t, t, lambda b, s, ty: b.mul(b.mul(s[0], s[0], ty), s[0], ty))
    if e == 1:
        return elementwise(ctx, [x], t, t, lambda b, s, ty: s[0])
    if e == 0:
        return elementwise(ctx, [x], t, t, lambda b, s, ty: b.const(1, ty))
    if is_float(t):
        if e == 0.5:
            return elementwise(ctx, [x], t, t, lambda b, s, ty: b.math("sqrt", s[0], ty))
        if e == -0.5:
            return elementwise(ctx, [x], t, t, lambda b, s, ty: b.math("rsqrt", s[0], ty))
        if e == -1:
            return elementwise(ctx, [x], t, t, lambda b, s, ty: b.div(b.const(1.0, ty), s[0], ty))
        if e == -2:
            return elementwise(ctx, [x], t, t, lambda b, s, ty: b.div(
                b.const(1.0, ty), b.mul(s[0], s[0], ty), ty))
        return elementwise(ctx, [x, e], t, t, lambda b, s, ty: b.math2("powf", s[0], s[1], ty))
    if isinstance(e, int) and e > 0:
        def fn(b, s, ty):
            r = s[0]
            for _ in range(e - 1):
                r = b.mul(r, s[0], ty)
            return r
        return elementwise(ctx, [x], t, t, fn)
    raise ctx.fail(f"integer power {e} is not supported")


@lowers(aten.pow.Tensor_Tensor, aten.pow.Scalar)
def _pow(ctx, node, a, e):
    t = ctx.out_dtype
    if not is_float(t):
        raise ctx.fail("integer powers of tensors are not supported")
    return elementwise(ctx, [a, e], t, t, lambda b, s, ty: b.math2("powf", s[0], s[1], ty))


def _compare(pred: str):
    def lower(ctx: Context, node, a, b_):
        compute = result_dtype(a, b_)

        @predicate
        def fn(b, s, ty):
            return b.cmp(pred, s[0], s[1], ty)
        return elementwise(ctx, [a, b_], compute, "i1", fn)
    return lower


for _p in ("eq", "ne", "lt", "le", "gt", "ge"):
    _packet = getattr(aten, _p)
    lowers(_packet.Tensor, _packet.Scalar)(_compare(_p))


def _logical(op: str):
    def lower(ctx: Context, node, a, b_=None):
        @predicate
        def fn(b, s, ty):
            if op == "not":
                return b.logical("xori", s[0], b.const(1, "i1"))
            return b.logical(op, s[0], s[1])
        operands = [a] if b_ is None else [a, b_]
        return elementwise(ctx, operands, "i1", "i1", fn)
    return lower


lowers(aten.logical_not.default)(folds_transposes(_logical("not")))
lowers(aten.logical_and.default)(folds_transposes(_logical("andi")))
lowers(aten.logical_or.default)(folds_transposes(_logical("ori")))
lowers(aten.logical_xor.default)(folds_transposes(_logical("xori")))


def _bitwise(op: str):
    def lower(ctx: Context, node, a, b_=None):
        t = ctx.out_dtype

        def fn(b, s, ty):
            if op == "not":
                if ty == "i1":
                    return b.logical("xori", s[0], b.const(1, "i1"))
                return b.emit(f"arith.xori {s[0]}, {b.const(-1, ty)} : {ty}")
            return b.emit(f"arith.{op} {s[0]}, {s[1]} : {ty}")
        operands = [a] if b_ is None else [a, b_]
        return elementwise(ctx, operands, t, t, fn)
    return lower


lowers(aten.bitwise_not.default)(folds_transposes(_bitwise("not")))
lowers(aten.bitwise_and.Tensor, aten.bitwise_and.Scalar)(folds_transposes(_bitwise("andi")))
lowers(aten.bitwise_or.Tensor, aten.bitwise_or.Scalar)(folds_transposes(_bitwise("ori")))
lowers(aten.bitwise_xor.Tensor, aten.bitwise_xor.Scalar)(folds_transposes(_bitwise("xori")))


@lowers(aten.isnan.default)
def _isnan(ctx, node, x):
    @predicate
    def fn(b, s, ty):
        return b.isnan(s[0], ty)
    return elementwise(ctx, [x], x.dtype, "i1", fn)


@lowers(aten.isinf.default)
def _isinf(ctx, node, x):
    @predicate
    def fn(b, s, ty):
        a = b.math("absf", s[0], ty)
        return b.cmp("eq", a, b.const(float("inf"), ty), ty)
    return elementwise(ctx, [x], x.dtype, "i1", fn)


@lowers(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther, aten.where.Scalar)
@folds_transposes
def _where(ctx, node, cond, a, b_):
    t = ctx.out_dtype
    tensors = [v for v in (cond, a, b_) if isinstance(v, Value)]

    def body(b: Body, args: list[str]) -> list[str]:
        it = iter(args)
        c = next(it) if isinstance(cond, Value) else b.const(cond, "i1")
        if isinstance(cond, Value):
            c = b.cast(c, cond.dtype, "i1")
        vals = []
        for o in (a, b_):
            if isinstance(o, Value):
                vals.append(b.cast(next(it), o.dtype, t))
            else:
                vals.append(b.const(o, t))
        return [b.select(c, vals[0], vals[1], t)]
    return map_elementwise(ctx, tensors, ctx.out_shape, t, body)


@lowers(aten.clamp.default, aten.clamp.Tensor)
def _clamp(ctx, node, x, lo=None, hi=None):
    lo = node.kwargs.get("min", lo)
    hi = node.kwargs.get("max", hi)
    t = ctx.out_dtype
    operands = [x] + [v for v in (lo, hi) if v is not None]

    def fn(b, s, ty):
        r = s[0]
        k = 1
        # ATen clamp: min(max(x, lo), hi), NaN propagates.
        if lo is not None:
            r = b.maximum(r, s[k], ty)
            k += 1
        if hi is not None:
            r = b.minimum(r, s[k], ty)
        return r
    return elementwise(ctx, operands, t, t, fn)


@lowers(aten.clamp_min.default, aten.clamp_min.Tensor)
def _clamp_min(ctx, node, x, lo):
    t = ctx.out_dtype
    return elementwise(ctx, [x, lo], t, t, lambda b, s, ty: b.maximum(s[0], s[1], ty))


@lowers(aten.clamp_max.default, aten.clamp_max.Tensor)
def _clamp_max(ctx, node, x, hi):
    t = ctx.out_dtype
    return elementwise(ctx, [x, hi], t, t, lambda b, s, ty: b.minimum(s[0], s[1], ty))


@lowers(aten.addcmul.default)
@folds_transposes
def _addcmul(ctx, node, x, t1, t2, value=1):
    value = node.kwargs.get("value", value)
    t = ctx.out_dtype
    # ATen: self + value * t1 * t2, left to right.
    return elementwise(ctx, [x, t1, t2], t, t, lambda b, s, ty: b.add(
        s[0], b.mul(b.mul(b.const(value, ty), s[1], ty), s[2], ty), ty))


@lowers(aten.addcdiv.default)
@folds_transposes
def _addcdiv(ctx, node, x, t1, t2, value=1):
    value = node.kwargs.get("value", value)
    t = ctx.out_dtype
    return elementwise(ctx, [x, t1, t2], t, t, lambda b, s, ty: b.add(
        s[0], b.div(b.mul(b.const(value, ty), s[1], ty), s[2], ty), ty))
