#!/usr/bin/env python3
"""Checks a generated LLM step (scripts/llm_workloads.py) against a NumPy
reference of the same decoder: runs the tiny model's step with MLIR's own
reference lowering and mlir-runner (no hwagent code) on seeded inputs and
compares every result (hidden states or logits, updated KV caches).

    scripts/check_llm_step.py --phase decode --weights int8

Prints the largest relative error per result and exits non-zero when one
exceeds --tolerance (the step computes in f16; the reference in f32 from
the same f16-rounded inputs).
"""
import argparse
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llm_workloads  # noqa: E402
from check_gradients import PIPELINE, run_reference  # noqa: E402


def signature(text):
    """[(name, shape, dtype)] of the step's arguments, and its results."""
    head = text[text.index("func.func"):text.index("attributes")]
    args = re.findall(r'%(\w+): tensor<([0-9x]+)x(f16|i8)> \{hwagent.name', head)
    results = re.findall(r'tensor<([0-9x]+)x(f16)> \{hwagent.name = "(\w+)"\}', head.split("->")[1])
    shape = lambda s: [int(d) for d in s.split("x")]  # noqa: E731
    return ([(n, shape(s), t) for n, s, t in args], [(n, shape(s)) for s, _, n in results])


def inputs(args, cfg, seed):
    rng = np.random.default_rng(seed)
    values = {}
    c, t, hd = cfg["context"], cfg["tokens"], cfg["dim"] // cfg["heads"]
    for name, shape, dtype in args:
        if dtype == "i8":
            values[name] = rng.integers(-127, 128, size=shape).astype(np.int8)
        elif name == "mask":  # causal over the cache, new tokens at its end
            pos = np.arange(c)[None, :] <= (c - t + np.arange(t))[:, None]
            values[name] = np.where(pos, 0.0, -1e4).astype(np.float16)
        elif name in ("rope_cos", "rope_sin"):
            angle = rng.uniform(0, 2 * np.pi, size=(shape[0], 1, shape[2]))
            table = np.cos(angle) if name == "rope_cos" else np.sin(angle)
            table = np.concatenate([table, table], axis=1)
            if name == "rope_sin":
                table[:, 0] *= -1  # rotate-half: the first half takes -x2 sin
            values[name] = table.astype(np.float16)
        elif name.endswith("_scale"):  # weights of about 1/sqrt(fan-in), as fp16's
            fan_in = values[name[:-len("_scale")]].shape[0]
            values[name] = (rng.uniform(0.5, 1.5, size=shape) / 127 / np.sqrt(fan_in)).astype(np.float16)
        elif name.endswith("norm"):
            values[name] = rng.uniform(0.5, 1.5, size=shape).astype(np.float16)
        else:
            scale = 1.0 if name in ("x",) or "cache" in name else 1 / np.sqrt(shape[0])
            values[name] = (rng.standard_normal(shape) * scale).astype(np.float16)
    return values


def reference(v, cfg):
    """The decoder in f32 from the same (f16-rounded) inputs."""
    f = {k: a.astype(np.float32) for k, a in v.items()}
    b, t, c = cfg["batch"], cfg["tokens"], cfg["context"]
    h, kv, d = cfg["heads"], cfg["kv_heads"], cfg["dim"]
    hd, g = d // h, h // kv

    def norm(x, gamma):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * gamma

    def lin(x, name):
        if cfg["weights"] == "int8":
            return (x @ f[name]) * f[name + "_scale"]
        return x @ f[name]

    def rope(x, heads):
        x4 = x.reshape(b * t, heads, 2, hd // 2)
        swapped = x4[:, :, ::-1]
        out = x4 * f["rope_cos"][:, None] + swapped * f["rope_sin"][:, None]
        return out.reshape(b * t, heads * hd)

    x, results = f["x"], {}
    for i in range(cfg["layers"]):
        p = f"l{i}_"
        h1 = norm(x, f[p + "attn_norm"])
        q, k, vv = rope(lin(h1, p + "wq"), h), rope(lin(h1, p + "wk"), kv), lin(h1, p + "wv")
        caches = []
        for name, new in (("k_cache", k), ("v_cache", vv)):
            cache = f[p + name].copy()
            cache[:, :, c - t:] = new.reshape(b, t, kv, hd).transpose(0, 2, 1, 3)
            results[p + name + "_out"] = cache
            caches.append(cache)
        qh = q.reshape(b, t, kv, g, hd)
        s = np.einsum("btkgd,bkcd->bktgc", qh, caches[0]) / np.sqrt(hd) + f["mask"][None, None, :, None]
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        o = np.einsum("bktgc,bkcd->btkgd", s, caches[1]).reshape(b * t, d)
        x = x + lin(o, p + "wo")
        h2 = norm(x, f[p + "mlp_norm"])
        gate, up = lin(h2, p + "w_gate"), lin(h2, p + "w_up")
        x = x + lin(gate / (1 + np.exp(-gate)) * up, p + "w_down")
    if cfg["head"]:
        last = x.reshape(b, t, d)[:, -1]
        results["logits"] = lin(norm(last, f["final_norm"]), "lm_head")
    else:
        results["hidden"] = x
    return results


def literal(a):
    """A dense elements attribute of `a` (nested as its shape)."""
    fmt = (lambda e: str(int(e))) if a.dtype == np.int8 else (lambda e: f"{float(e):.6e}")

    def nest(x):
        if x.ndim == 1:
            return "[" + ", ".join(fmt(e) for e in x) + "]"
        return "[" + ", ".join(nest(row) for row in x) + "]"
    kind = "i8" if a.dtype == np.int8 else "f16"
    return f"dense<{nest(a)}> : tensor<{'x'.join(map(str, a.shape))}x{kind}>"


def main_function(args, results, values, phase):
    lines = ["func.func private @printMemrefF32(memref<*xf32>)", "func.func @main() {"]
    for name, shape, _ in args:
        lines.append(f"  %in_{name} = arith.constant {literal(values[name].reshape(shape))}")
    arg_types = ", ".join(f"tensor<{'x'.join(map(str, s))}x{t}>" for _, s, t in args)
    res_types = ", ".join(f"tensor<{'x'.join(map(str, s))}xf16>" for _, s in results)
    lines.append(f"  %r:{len(results)} = func.call @{phase}_step("
                 + ", ".join(f"%in_{n}" for n, _, _ in args) + f") : ({arg_types}) -> ({res_types})")
    for k, (name, shape) in enumerate(results):
        n = len(shape)
        dims = ", ".join(f"d{i}" for i in range(n))
        t16 = f"tensor<{'x'.join(map(str, shape))}xf16>"
        t32 = t16.replace("f16", "f32")
        m32 = t32.replace("tensor", "memref")
        ident = f"affine_map<({dims}) -> ({dims})>"
        lines += [f"  %e{k} = tensor.empty() : {t32}",
                  f"  %w{k} = linalg.generic {{indexing_maps = [{ident}, {ident}], iterator_types = ["
                  + ", ".join(['"parallel"'] * n) + f"]}} ins(%r#{k} : {t16}) outs(%e{k} : {t32}) {{",
                  "  ^bb0(%a: f16, %o: f32):",
                  "    %x = arith.extf %a : f16 to f32",
                  "    linalg.yield %x : f32",
                  f"  }} -> {t32}",
                  f"  %m{k} = bufferization.to_buffer %w{k} : {t32} to {m32}",
                  f"  %u{k} = memref.cast %m{k} : {m32} to memref<*xf32>",
                  f"  func.call @printMemrefF32(%u{k}) : (memref<*xf32>) -> ()"]
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def run(module):
    # Returned caches leave bufferization.clone ops behind: lowered to memref.
    pipeline = PIPELINE.replace("buffer-deallocation-pipeline, ",
                                "buffer-deallocation-pipeline, convert-bufferization-to-memref, ")
    return [np.array(values) for values in run_reference(module, pipeline)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phase", choices=["decode", "prefill"], default="decode")
    parser.add_argument("--weights", choices=["fp16", "int8"], default="fp16")
    parser.add_argument("--head", action="store_true")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tolerance", type=float, default=0.03)
    a = parser.parse_args()
    cfg = llm_workloads.config("tiny", a.phase, batch=a.batch, context=16, prompt=4,
                               weights=a.weights, head=a.head)
    text = llm_workloads.step_text(cfg)
    args, results = signature(text)
    values = inputs(args, cfg, a.seed)
    # Only MLIR's own dialects: the phase attribute is hwagent's.
    plain = text.replace("attributes {hwagent.phase = #hwagent.phase<forward>} ", "")
    got = run(plain + main_function(args, results, values, a.phase))
    want = reference(values, cfg)
    worst = 0.0
    for (name, shape), ours in zip(results, got):
        ref = want[name].ravel()
        err = float(np.abs(ours - ref).max() / max(np.abs(ref).max(), 1e-6))
        worst = max(worst, err)
        print(f"{name} {'x'.join(map(str, shape))}: max relative error {err:.2e}")
    print(f"{a.phase} {a.weights}: {'ok' if worst <= a.tolerance else 'FAILED'} "
          f"(worst {worst:.2e}, tolerance {a.tolerance})")
    return 0 if worst <= a.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
