"""Random numbers: dropout's Bernoulli masks from a counter-based generator.

A compiled step is a pure function, so its randomness comes from its
arguments: the step takes a counter (`hwagent:rng_step`, an int64 scalar it
returns incremented, saved in checkpoints like any state) and every random
op hashes (seed, counter, op site, element index) with SplitMix64's
finalizer -- a bijective mixer that passes BigCrush on consecutive inputs
(Steele et al., "Fast splittable pseudorandom number generators", OOPSLA
2014) -- into 24 uniform bits. Masks are independent across elements,
sites and steps, resume reproduces them bit for bit, and any thread count
draws the same numbers. PyTorch's own stream (mt19937 on the CPU) cannot
be reproduced this way: dropout matches PyTorch in distribution, not bit
for bit (docs/importer.md).
"""

from __future__ import annotations

import torch

from ..mlir import OutputSpec, Value, is_float
from . import Context, aten, lowers

_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB

def _mix(b, z: str) -> str:
    """SplitMix64's finalizer on an i64."""
    def shr(v, n):
        return b.emit(f"arith.shrui {v}, {b.const(n, 'i64')} : i64")

    def xor(u, v):
        return b.emit(f"arith.xori {u}, {v} : i64")
    z = b.mul(xor(z, shr(z, 30)), b.const(_MIX1, "i64"), "i64")
    z = b.mul(xor(z, shr(z, 27)), b.const(_MIX2, "i64"), "i64")
    return xor(z, shr(z, 31))


def uniform(ctx: Context, shape, dtype: str = "f32") -> Value:
    """Uniform [0, 1) values of `shape` for this op site and step."""
    rng = getattr(ctx, "rng", None)
    if rng is None:
        raise ctx.fail("random numbers in a function without a counter argument",
                       "dropout and other random ops are supported in the training step only")
    site = ctx.next_random_site()
    seed = ctx.rng_seed
    rank = len(shape)
    strides = []
    acc = 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    strides.reverse()
    base = (seed * _GOLDEN + (site + 1) * _MIX1) & 0xFFFFFFFFFFFFFFFF

    def body(b, a):
        counter = a[0]
        lin = b.const(0, "i64")
        for i in range(rank):
            idx = b.index_cast(b.index(i), "i64")
            lin = b.add(lin, b.mul(idx, b.const(strides[i], "i64"), "i64"), "i64")
        # key = base + counter * 2^40 + linear index, one odd step apart per draw
        key = b.add(b.const(base, "i64"),
                    b.mul(counter, b.const(1 << 40, "i64"), "i64"), "i64")
        key = b.add(key, lin, "i64")
        z = _mix(b, b.mul(key, b.const(_GOLDEN, "i64"), "i64"))
        top = b.emit(f"arith.shrui {z}, {b.const(40, 'i64')} : i64")
        f = b.emit(f"arith.uitofp {top} : i64 to f32")
        u = b.mul(f, b.const(2.0 ** -24, "f32"), "f32")
        return [b.cast(u, "f32", dtype)]
    out = OutputSpec(tuple(shape), dtype, [f"d{i}" for i in range(rank)])
    return ctx.fn.generic(rank, ["parallel"] * rank, [(rng, [])], [out], body, "rand")[0]


def _bernoulli_of(ctx: Context, shape, dtype: str, p) -> Value:
    """1 with probability p (a Python number or a tensor), else 0."""
    u = uniform(ctx, shape)
    if isinstance(p, Value):
        from .elementwise import map_elementwise
        pf = ctx.cast(p, "f32")
        return map_elementwise(ctx, [u, pf], shape, dtype, lambda b, a: [
            b.cast(b.cmp("lt", a[0], a[1], "f32"), "i1", dtype)], "bern")
    from .elementwise import map_elementwise
    return map_elementwise(ctx, [u], shape, dtype, lambda b, a: [
        b.cast(b.cmp("lt", a[0], b.const(float(p), "f32"), "f32"), "i1", dtype)], "bern")


@lowers(aten.bernoulli_.float, aten.bernoulli.p, aten.bernoulli_.Tensor, aten.bernoulli.default)
def _bernoulli(ctx: Context, node, x, p=None, generator=None):
    if p is None:
        p = x  # bernoulli(probabilities)
    return _bernoulli_of(ctx, ctx.out_shape, ctx.out_dtype, p)


@lowers(aten.native_dropout.default)
def _native_dropout(ctx: Context, node, x, p, train):
    from .elementwise import map_elementwise
    if not train or p == 0:
        mask = ctx.fn.full(x.shape, "i1", 1)
        return x, mask
    keep = _bernoulli_of(ctx, x.shape, "i1", 1.0 - p)
    scale = 1.0 / (1.0 - p) if p < 1 else 0.0
    t = x.dtype
    out = map_elementwise(ctx, [x, keep], x.shape, t, lambda b, a: [
        b.mul(b.mul(a[0], b.cast(a[1], "i1", t), t), b.const(scale, t), t)], "drop")
    return out, keep


@lowers(aten.rand_like.default, aten.rand.default, aten.uniform_.default, aten.uniform.default)
def _rand(ctx: Context, node, *args, **kwargs):
    t = ctx.out_dtype
    if not is_float(t):
        raise ctx.fail("integer random tensors are not supported")
    lo, hi = 0.0, 1.0
    if node.target in (aten.uniform_.default, aten.uniform.default):
        lo = args[1] if len(args) > 1 else kwargs.get("from", 0.0)
        hi = args[2] if len(args) > 2 else kwargs.get("to", 1.0)
    u = uniform(ctx, ctx.out_shape, t)
    if lo == 0.0 and hi == 1.0:
        return u
    from .elementwise import map_elementwise
    return map_elementwise(ctx, [u], u.shape, t, lambda b, a: [
        b.add(b.mul(a[0], b.const(hi - lo, t), t), b.const(lo, t), t)], "unif")


RANDOM = {aten.bernoulli_.float, aten.bernoulli.p, aten.bernoulli_.Tensor,
          aten.bernoulli.default, aten.native_dropout.default, aten.rand_like.default,
          aten.rand.default, aten.uniform_.default, aten.uniform.default}
RANDOM.discard(None)


def uses_random(gm) -> bool:
    return any(n.op == "call_function" and n.target in RANDOM for n in gm.graph.nodes)


del torch
