"""LLM inference steps (decode and prefill) for scripts/gen_workloads.py.

One function per file: `@decode_step` or `@prefill_step` of a LLaMA-style
decoder stack in linalg on tensors, f16 activations, inference only (the
function carries `hwagent.phase = #hwagent.phase<forward>`, so the tools
treat its weights as resident, not as a training step's inputs).

Per layer: RMSNorm, Q/K/V projections, rotary embedding, grouped-query
attention (n_heads query heads share n_kv_heads key/value heads) over a KV
cache that is passed in as arguments and returned updated, the output
projection and a residual, RMSNorm, a SwiGLU MLP and a residual. Optionally
(`head`) the final RMSNorm and the LM head (the last token's logits).

Simplifications (docs/workloads.md): the token embedding is a gather done by
the caller (`%x` is the embedded tokens); the rotary tables (cos, sin with
the rotate-half sign folded in) are inputs per token row; the cache has a
fixed length `context` and the step writes its new tokens at the end of it
(as fixed-shape ANE/Core ML implementations do: every step attends over the
whole cache, with an additive mask passed in), so the position is static.

int8 weights are i8 arguments with one f16 scale per output channel; the
step widens them to f16 (a cast, no arithmetic) right before the matmul and
applies the scale to the matmul's output, which is the same product as
dequantizing first (per-output-channel scales factor out of the sum).
"""
import math

# Published shapes (Hugging Face config.json of each model).
MODELS = {
    # meta-llama/Llama-3.2-1B
    "1b": dict(dim=2048, layers=16, heads=32, kv_heads=8, ffn=8192, vocab=128256),
    # meta-llama/Llama-3.2-3B
    "3b": dict(dim=3072, layers=28, heads=24, kv_heads=8, ffn=8192, vocab=128256),
    # meta-llama/Llama-2-7b (multi-head: kv_heads = heads), the model of
    # llama.cpp's Apple Silicon benchmark (discussion #4167)
    "7b": dict(dim=4096, layers=32, heads=32, kv_heads=32, ffn=11008, vocab=32000),
    # meta-llama/Llama-3.1-8B
    "8b": dict(dim=4096, layers=32, heads=32, kv_heads=8, ffn=14336, vocab=128256),
    # a tiny stand-in with the same structure (tests)
    "tiny": dict(dim=64, layers=2, heads=4, kv_heads=2, ffn=128, vocab=96),
}

ACT = "f16"


def ttype(shape, dtype=ACT):
    return "tensor<" + "".join(f"{d}x" for d in shape) + f"{dtype}>"


def amap(n, exprs):
    dims = ", ".join(f"d{i}" for i in range(n))
    return f"affine_map<({dims}) -> ({', '.join(exprs)})>"


def ident(n):
    return [f"d{i}" for i in range(n)]


class LlmEmitter:
    """SSA builder for one func.func whose values carry shape and dtype."""

    def __init__(self):
        self.lines, self.consts, self.args = [], [], []
        self.types, self.scalars = {}, {}
        self.count = 0
        self.indent = "  "

    def fresh(self, hint="v"):
        self.count += 1
        return f"%{hint}{self.count}"

    def emit(self, line):
        self.lines.append(self.indent + line)

    def arg(self, name, shape, dtype=ACT):
        value = f"%{name}"
        self.args.append((value, name))
        return self.typed(value, shape, dtype)

    def typed(self, value, shape, dtype=ACT):
        self.types[value] = (list(shape), dtype)
        return value

    def shape(self, value):
        return self.types[value][0]

    def dtype(self, value):
        return self.types[value][1]

    def tt(self, value):
        return ttype(*self.types[value])

    def scalar(self, value, dtype=ACT):
        key = (float(value), dtype)
        if key not in self.scalars:
            name = self.fresh("c")
            text = "0xFC00" if value == float("-inf") else f"{float(value):.8e}"
            self.consts.append(f"  {name} = arith.constant {text} : {dtype}")
            self.scalars[key] = name
        return self.scalars[key]

    def full(self, shape, value, dtype=ACT):
        c = self.scalar(value, dtype)
        e, z = self.fresh("e"), self.fresh("z")
        self.emit(f"{e} = tensor.empty() : {ttype(shape, dtype)}")
        self.emit(f"{z} = linalg.fill ins({c} : {dtype}) outs({e} : {ttype(shape, dtype)}) "
                  f"-> {ttype(shape, dtype)}")
        return self.typed(z, shape, dtype)

    def generic(self, ins, out_shape, out_exprs, iterators, body, init=None,
                out_dtype=ACT, hint="g"):
        """ins: [(value, exprs)]; body(args) emits scalar ops with op() and
        returns the yielded value."""
        n = len(iterators)
        maps = [amap(n, e) for _, e in ins] + [amap(n, out_exprs)]
        if init is None:
            init = self.fresh("e")
            self.emit(f"{init} = tensor.empty() : {ttype(out_shape, out_dtype)}")
        name = self.fresh(hint)
        its = ", ".join(f'"{it}"' for it in iterators)
        self.emit(f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
                  f"iterator_types = [{its}]}}")
        self.emit(f"    ins({', '.join(v for v, _ in ins)} : {', '.join(self.tt(v) for v, _ in ins)}) "
                  f"outs({init} : {ttype(out_shape, out_dtype)}) {{")
        args = [(f"%a{i}", self.dtype(v)) for i, (v, _) in enumerate(ins)] + [("%acc", out_dtype)]
        self.emit("^bb0(" + ", ".join(f"{a}: {t}" for a, t in args) + "):")
        saved, self.indent, self.body_count = self.indent, "    ", 0
        self.emit(f"linalg.yield {body([a for a, _ in args])} : {out_dtype}")
        self.indent = saved
        self.emit(f"}} -> {ttype(out_shape, out_dtype)}")
        return self.typed(name, out_shape, out_dtype)

    def op(self, text):
        self.body_count += 1
        name = f"%s{self.body_count}"
        self.emit(f"{name} = {text}")
        return name

    # --- shapes ------------------------------------------------------------
    def expand(self, x, out, groups):
        name = self.fresh("ex")
        g = ", ".join("[" + ", ".join(map(str, grp)) + "]" for grp in groups)
        self.emit(f"{name} = tensor.expand_shape {x} [{g}] output_shape "
                  f"[{', '.join(map(str, out))}] : {self.tt(x)} into {ttype(out, self.dtype(x))}")
        return self.typed(name, out, self.dtype(x))

    def collapse(self, x, out, groups):
        name = self.fresh("co")
        g = ", ".join("[" + ", ".join(map(str, grp)) + "]" for grp in groups)
        self.emit(f"{name} = tensor.collapse_shape {x} [{g}] : {self.tt(x)} into "
                  f"{ttype(out, self.dtype(x))}")
        return self.typed(name, out, self.dtype(x))

    def transpose(self, x, perm):
        out = [self.shape(x)[p] for p in perm]
        e, name = self.fresh("e"), self.fresh("tr")
        self.emit(f"{e} = tensor.empty() : {ttype(out, self.dtype(x))}")
        self.emit(f"{name} = linalg.transpose ins({x} : {self.tt(x)}) outs({e} : "
                  f"{ttype(out, self.dtype(x))}) permutation = [{', '.join(map(str, perm))}]")
        return self.typed(name, out, self.dtype(x))

    def insert(self, x, into, offsets):
        name = self.fresh("kv")
        sizes, ones = self.shape(x), ["1"] * len(offsets)
        self.emit(f"{name} = tensor.insert_slice {x} into {into}[{', '.join(map(str, offsets))}] "
                  f"[{', '.join(map(str, sizes))}] [{', '.join(ones)}] : {self.tt(x)} into {self.tt(into)}")
        return self.typed(name, self.shape(into), self.dtype(into))

    # --- arithmetic ----------------------------------------------------------
    def matmul(self, a, b):
        m, n = self.shape(a)[0], self.shape(b)[1]
        acc = self.full([m, n], 0.0)
        name = self.fresh("mm")
        self.emit(f"{name} = linalg.matmul ins({a}, {b} : {self.tt(a)}, {self.tt(b)}) "
                  f"outs({acc} : {ttype([m, n])}) -> {ttype([m, n])}")
        return self.typed(name, [m, n])

    def mac(self, a):
        return self.op(f"arith.addf {a[2]}, {self.op(f'arith.mulf {a[0]}, {a[1]} : f16')} : f16")

    def bmm(self, a, b, tb=False):
        """Batched a @ b (b transposed when tb), as a generic contraction."""
        bt, m, k = self.shape(a)
        n = self.shape(b)[1] if tb else self.shape(b)[2]
        acc = self.full([bt, m, n], 0.0)
        bexprs = ["d0", "d2", "d3"] if tb else ["d0", "d3", "d2"]
        return self.generic([(a, ["d0", "d1", "d3"]), (b, bexprs)], [bt, m, n], ["d0", "d1", "d2"],
                            ["parallel"] * 3 + ["reduction"], self.mac, init=acc, hint="bmm")

    def ew(self, fn, *values, hint="w"):
        n = len(self.shape(values[0]))
        return self.generic([(v, ident(n)) for v in values], self.shape(values[0]), ident(n),
                            ["parallel"] * n, fn, hint=hint)

    def add(self, x, y):
        return self.ew(lambda a: self.op(f"arith.addf {a[0]}, {a[1]} : f16"), x, y, hint="res")

    def reduce_last(self, x, combine, init, hint="red", pre=None):
        """Reduces the last dimension (f32 accumulator for sums)."""
        shape = self.shape(x)
        n = len(shape)
        dtype = "f32" if combine == "arith.addf" else ACT
        acc = self.full(shape[:-1], init, dtype)

        def body(a):
            v = pre(a[0]) if pre else a[0]
            if dtype == "f32":
                v = self.op(f"arith.extf {v} : f16 to f32")
            return self.op(f"{combine} {a[1]}, {v} : {dtype}")
        return self.generic([(x, ident(n))], shape[:-1], ident(n)[:-1],
                            ["parallel"] * (n - 1) + ["reduction"], body, init=acc,
                            out_dtype=dtype, hint=hint)


# ----------------------------------------------------------------------------
# The decoder stack
# ----------------------------------------------------------------------------
class Step:
    """Builds one decode or prefill step; `cfg` holds the model's shapes and
    the step's batch, tokens (1 for decode), context and weight dtype."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.em = LlmEmitter()
        self.hd = cfg["dim"] // cfg["heads"]
        self.rows = cfg["batch"] * cfg["tokens"]

    def rmsnorm(self, x, gamma):
        em, d = self.em, self.shape_of(x)[1]
        ms = em.reduce_last(x, "arith.addf", 0.0, hint="ss",
                            pre=lambda v: em.op(f"arith.mulf {v}, {v} : f16"))
        inv_d, eps = em.scalar(1.0 / d, "f32"), em.scalar(1e-5, "f32")

        def rsqrt(a):
            mean = em.op(f"arith.mulf {a[0]}, {inv_d} : f32")
            r = em.op(f"math.rsqrt {em.op(f'arith.addf {mean}, {eps} : f32')} : f32")
            return em.op(f"arith.truncf {r} : f32 to f16")
        inv = em.generic([(ms, ["d0"])], [self.rows], ["d0"], ["parallel"], rsqrt, hint="rms")

        def scale(a):
            return em.op(f"arith.mulf {em.op(f'arith.mulf {a[0]}, {a[1]} : f16')}, {a[2]} : f16")
        return em.generic([(x, ["d0", "d1"]), (inv, ["d0"]), (gamma, ["d1"])], [self.rows, d],
                          ["d0", "d1"], ["parallel", "parallel"], scale, hint="norm")

    def shape_of(self, v):
        return self.em.shape(v)

    def linear(self, x, name, din, dout):
        """x @ W with W an f16 argument, or i8 with per-output-channel f16
        scales (widened right before the matmul, scaled after it)."""
        em = self.em
        if self.cfg["weights"] == "fp16":
            return em.matmul(x, em.arg(name, [din, dout]))
        wq = em.arg(name, [din, dout], "i8")
        scale = em.arg(name + "_scale", [dout])
        w = em.generic([(wq, ["d0", "d1"])], [din, dout], ["d0", "d1"], ["parallel", "parallel"],
                       lambda a: em.op(f"arith.sitofp {a[0]} : i8 to f16"), hint="deq")
        y = em.matmul(x, w)
        return em.generic([(y, ["d0", "d1"]), (scale, ["d1"])], em.shape(y), ["d0", "d1"],
                          ["parallel", "parallel"],
                          lambda a: em.op(f"arith.mulf {a[0]}, {a[1]} : f16"), hint="scl")

    def rope(self, x, heads, cos, sin):
        """Rotate-half rotary embedding: x * cos + swap_halves(x) * sin, with
        the tables per token row and the sign folded into `sin`."""
        em, r, half = self.em, self.rows, self.hd // 2
        x4 = em.expand(x, [r, heads, 2, half], [[0], [1, 2, 3]])

        def body(a):
            p = em.op(f"arith.mulf {a[0]}, {a[2]} : f16")
            return em.op(f"arith.addf {p}, {em.op(f'arith.mulf {a[1]}, {a[3]} : f16')} : f16")
        out = em.generic([(x4, ["d0", "d1", "d2", "d3"]), (x4, ["d0", "d1", "1 - d2", "d3"]),
                          (cos, ["d0", "d2", "d3"]), (sin, ["d0", "d2", "d3"])],
                         [r, heads, 2, half], ["d0", "d1", "d2", "d3"], ["parallel"] * 4, body,
                         hint="rope")
        return em.collapse(out, [r, heads * self.hd], [[0], [1, 2, 3]])

    def to_cache_layout(self, x, heads):
        """(B*T, heads*hd) -> (B, heads, T, hd)."""
        b, t, hd = self.cfg["batch"], self.cfg["tokens"], self.hd
        x4 = self.em.expand(x, [b, t, heads, hd], [[0, 1], [2, 3]])
        return self.em.transpose(x4, [0, 2, 1, 3])

    def attention(self, q, k_cache, v_cache, mask):
        """Grouped-query attention of the step's queries over the updated
        caches: each of the kv_heads serves heads / kv_heads query heads."""
        em, cfg, hd = self.em, self.cfg, self.hd
        b, t, kv, c = cfg["batch"], cfg["tokens"], cfg["kv_heads"], cfg["context"]
        g = cfg["heads"] // kv
        # (B*T, H*hd) -> (B*kv, T*g, hd): the query heads of one kv head together.
        q4 = em.transpose(em.expand(q, [b, t, kv, g * hd], [[0, 1], [2, 3]]), [0, 2, 1, 3])
        q3 = em.collapse(q4, [b * kv, t, g * hd], [[0, 1], [2], [3]])
        q3 = em.collapse(em.expand(q3, [b * kv, t, g, hd], [[0], [1], [2, 3]]),
                         [b * kv, t * g, hd], [[0], [1, 2], [3]])
        k3 = em.collapse(k_cache, [b * kv, c, hd], [[0, 1], [2], [3]])
        v3 = em.collapse(v_cache, [b * kv, c, hd], [[0, 1], [2], [3]])
        s4 = em.expand(em.bmm(q3, k3, tb=True), [b * kv, t, g, c], [[0], [1, 2], [3]])
        inv = em.scalar(1.0 / math.sqrt(hd))

        def masked(a):
            return em.op(f"arith.addf {em.op(f'arith.mulf {a[0]}, {inv} : f16')}, {a[1]} : f16")
        s4 = em.generic([(s4, ident(4)), (mask, ["d1", "d3"])], em.shape(s4), ident(4),
                        ["parallel"] * 4, masked, hint="mask")
        p4 = self.softmax(s4)
        p3 = em.collapse(p4, [b * kv, t * g, c], [[0], [1, 2], [3]])
        o3 = em.bmm(p3, v3)
        # (B*kv, T*g, hd) -> (B*T, H*hd)
        o3 = em.collapse(em.expand(o3, [b * kv, t, g, hd], [[0], [1, 2], [3]]),
                         [b * kv, t, g * hd], [[0], [1], [2, 3]])
        o4 = em.expand(o3, [b, kv, t, g * hd], [[0, 1], [2], [3]])
        o4 = em.transpose(o4, [0, 2, 1, 3])
        return em.collapse(o4, [b * t, kv * g * hd], [[0, 1], [2, 3]])

    def softmax(self, s):
        em = self.em
        n = len(em.shape(s))
        lead = ident(n)[:-1]
        m = em.reduce_last(s, "arith.maximumf", float("-inf"), hint="max")
        e = em.generic([(s, ident(n)), (m, lead)], em.shape(s), ident(n), ["parallel"] * n,
                       lambda a: em.op(f"math.exp {em.op(f'arith.subf {a[0]}, {a[1]} : f16')} : f16"),
                       hint="exp")
        total = em.reduce_last(e, "arith.addf", 0.0, hint="sum")

        def div(a):
            wide = em.op(f"arith.extf {a[0]} : f16 to f32")
            return em.op(f"arith.truncf {em.op(f'arith.divf {wide}, {a[1]} : f32')} : f32 to f16")
        return em.generic([(e, ident(n)), (total, lead)], em.shape(s), ident(n), ["parallel"] * n,
                          div, hint="p")

    def layer(self, i, x, cos, sin, mask):
        em, cfg, hd = self.em, self.cfg, self.hd
        d, h, kv, f = cfg["dim"], cfg["heads"], cfg["kv_heads"], cfg["ffn"]
        b, t, c = cfg["batch"], cfg["tokens"], cfg["context"]
        p = f"l{i}_"
        h1 = self.rmsnorm(x, em.arg(p + "attn_norm", [d]))
        q = self.rope(self.linear(h1, p + "wq", d, h * hd), h, cos, sin)
        k = self.rope(self.linear(h1, p + "wk", d, kv * hd), kv, cos, sin)
        v = self.linear(h1, p + "wv", d, kv * hd)
        caches = []
        for name, new in (("k_cache", k), ("v_cache", v)):
            cache = em.arg(p + name, [b, kv, c, hd])
            caches.append(em.insert(self.to_cache_layout(new, kv), cache, [0, 0, c - t, 0]))
        attn = self.attention(q, caches[0], caches[1], mask)
        x = em.add(x, self.linear(attn, p + "wo", h * hd, d))
        h2 = self.rmsnorm(x, em.arg(p + "mlp_norm", [d]))
        gate, up = self.linear(h2, p + "w_gate", d, f), self.linear(h2, p + "w_up", d, f)
        one = em.scalar(1.0)

        def swiglu(a):  # silu(gate) * up
            ex = em.op(f"math.exp {em.op(f'arith.negf {a[0]} : f16')} : f16")
            sig = em.op(f"arith.divf {a[0]}, {em.op(f'arith.addf {one}, {ex} : f16')} : f16")
            return em.op(f"arith.mulf {sig}, {a[1]} : f16")
        act = em.ew(swiglu, gate, up, hint="swiglu")
        x = em.add(x, self.linear(act, p + "w_down", f, d))
        return x, caches

    def build(self):
        em, cfg = self.em, self.cfg
        d, c, t = cfg["dim"], cfg["context"], cfg["tokens"]
        x = em.arg("x", [self.rows, d])
        cos = em.arg("rope_cos", [self.rows, 2, self.hd // 2])
        sin = em.arg("rope_sin", [self.rows, 2, self.hd // 2])
        mask = em.arg("mask", [t, c])
        caches = []
        for i in range(cfg["layers"]):
            x, layer_caches = self.layer(i, x, cos, sin, mask)
            caches += layer_caches
        out = x
        if cfg["head"]:
            last = x if t == 1 else self.last_tokens(x)
            normed = self.rmsnorm_rows(last)
            out = self.linear(normed, "lm_head", d, cfg["vocab"])
        return out, caches

    def last_tokens(self, x):
        """The last token of every sequence (B rows of B*T)."""
        em, b, t, d = self.em, self.cfg["batch"], self.cfg["tokens"], self.cfg["dim"]
        x3 = em.expand(x, [b, t, d], [[0, 1], [2]])
        name = em.fresh("sl")
        em.emit(f"{name} = tensor.extract_slice {x3}[0, {t - 1}, 0] [{b}, 1, {d}] [1, 1, 1] : "
                f"{em.tt(x3)} to {ttype([b, d])}")
        return em.typed(name, [b, d])

    def rmsnorm_rows(self, x):
        saved = self.rows
        self.rows = self.em.shape(x)[0]
        y = self.rmsnorm(x, self.em.arg("final_norm", [self.cfg["dim"]]))
        self.rows = saved
        return y


def config(model="8b", phase="decode", layers=2, batch=1, context=512, prompt=128,
           weights="fp16", head=False):
    """A step's configuration: the model's shapes (MODELS), `layers` of its
    decoder layers (None: all), and the step's batch, cache length
    (`context`, the new tokens included), prompt tokens (prefill only) and
    weight dtype (fp16 or int8)."""
    if phase not in ("decode", "prefill"):
        raise ValueError(f"phase must be decode or prefill, not {phase!r}")
    if weights not in ("fp16", "int8"):
        raise ValueError(f"weights must be fp16 or int8, not {weights!r}")
    cfg = dict(MODELS[model])
    if layers is not None and not 0 <= layers <= cfg["layers"]:
        raise ValueError(f"layers must be 0 (all) to {cfg['layers']} for {model}, not {layers}")
    for name, value in (("batch", batch), ("context", context), ("prompt", prompt)):
        if value < 1:
            raise ValueError(f"{name} must be at least 1, not {value}")
    tokens = 1 if phase == "decode" else prompt
    if tokens > context:
        raise ValueError(f"{tokens} new tokens do not fit a cache of {context}")
    if cfg["heads"] % cfg["kv_heads"]:
        raise ValueError("heads must be a multiple of kv_heads")
    cfg.update(model=model, phase=phase, layers=layers or cfg["layers"], batch=batch,
               context=context, tokens=tokens, weights=weights, head=head)
    return cfg


def weight_count(cfg):
    """Weights the step reads (its matmuls'; norms excluded)."""
    d, hd = cfg["dim"], cfg["dim"] // cfg["heads"]
    per_layer = d * hd * (2 * cfg["heads"] + 2 * cfg["kv_heads"]) + 3 * d * cfg["ffn"]
    return per_layer * cfg["layers"] + (d * cfg["vocab"] if cfg["head"] else 0)


def flop_count(cfg):
    """Multiply-add FLOPs of the step's matmuls and attention (2 per MAC)."""
    rows = cfg["batch"] * cfg["tokens"]
    attention = 4 * cfg["layers"] * rows * cfg["context"] * cfg["dim"]
    head = cfg["dim"] * cfg["vocab"] * cfg["batch"] if cfg["head"] else 0
    return 2 * (weight_count(cfg) - cfg["dim"] * cfg["vocab"] * cfg["head"]) * rows \
        + 2 * head + attention


def step_text(cfg):
    """The MLIR text of one step (`@decode_step` or `@prefill_step`)."""
    step = Step(cfg)
    out, caches = step.build()
    em = step.em
    results = [(out, "logits" if cfg["head"] else "hidden")]
    results += [(c, name.replace("_cache", "_cache_out"))
                for c, (_, name) in zip(caches, [a for a in em.args if a[1].endswith("_cache")])]
    sig = ",\n    ".join(f'{v}: {em.tt(v)} {{hwagent.name = "{n}"}}' for v, n in em.args)
    res = ", ".join(f'{em.tt(v)} {{hwagent.name = "{n}"}}' for v, n in results)
    wbytes = weight_count(cfg) * (1 if cfg["weights"] == "int8" else 2)
    header = (f"// {cfg['phase'].capitalize()} step of a LLaMA-style {cfg['model'].upper()}-shaped decoder "
              f"(dim {cfg['dim']}, {cfg['heads']} heads, {cfg['kv_heads']} KV heads, FFN {cfg['ffn']}):\n"
              f"// {cfg['layers']} layers, batch {cfg['batch']}, {cfg['tokens']} new token(s), KV cache "
              f"{cfg['context']}, {cfg['weights']} weights ({wbytes} bytes"
              f"{', LM head included' if cfg['head'] else ''}). Inference only.")
    lines = [header, f"func.func @{cfg['phase']}_step(\n    {sig})",
             f"    -> ({res})", "    attributes {hwagent.phase = #hwagent.phase<forward>} {"]
    lines += em.consts + em.lines
    lines.append(f"  return {', '.join(v for v, _ in results)} : "
                 f"{', '.join(em.tt(v) for v, _ in results)}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def file_name(cfg):
    layers = "" if cfg["layers"] == MODELS[cfg["model"]]["layers"] else f"_{cfg['layers']}l"
    return f"llm_{cfg['model']}{layers}_{cfg['phase']}_{cfg['weights']}.mlir"


# The bundled steps (examples/): two layers of each model at its real shapes,
# and the tiny stand-in with --small.
BUNDLED = [dict(model=m, phase="decode", weights=w) for m in ("1b", "3b", "8b")
           for w in ("fp16", "int8")] + [dict(model="8b", phase="prefill", weights="fp16")]
SMALL = [dict(model="tiny", phase=p, weights=w, context=16, prompt=4)
         for p in ("decode", "prefill") for w in ("fp16", "int8")]
