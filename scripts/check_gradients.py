#!/usr/bin/env python3
"""Checks the gradients of a generated training step numerically.

For `train_step(inputs..., params...) -> (loss, params'...)` with SGD
(params' = params - lr * grad), compares the directional derivative the
step implies, sum(grad . d), with central finite differences of the loss,
(L(p + eps d) - L(p - eps d)) / (2 eps), for a fixed direction d. Runs the
step with MLIR's reference lowering and mlir-runner (no hwagent code), so it
validates the workloads themselves. With --f64 the step is evaluated in double
precision (a textual f32 -> f64 rewrite), so that small steps stay exact and
ReLU kinks do not blur the finite differences.

    scripts/check_gradients.py examples/mlp_small_train_step.mlir --lr 0.05
"""
import argparse
import math
import re
import subprocess
import sys

LLVM = "/usr/lib/llvm-22"
PIPELINE = ("builtin.module(one-shot-bufferize{bufferize-function-boundaries "
            "function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops}, "
            "buffer-deallocation-pipeline, func.func(convert-linalg-to-loops), "
            "expand-strided-metadata, lower-affine, convert-scf-to-cf, finalize-memref-to-llvm, convert-math-to-llvm, "
            "convert-arith-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, convert-index-to-llvm, "
            "reconcile-unrealized-casts)")


def parse_signature(text):
    m = re.search(r"func\.func @train_step\((.*?)\)\s*->\s*\((.*?)\)\s*\{", text, re.S)
    args = re.findall(r"(%\w+): (tensor<[^>]*>)", m.group(1))
    return args


def parallel(n):
    return ", ".join(['"parallel"'] * n)


def tensor_shape(t):
    inner = t[len("tensor<"):-1]
    parts = inner.split("x")
    return [int(p) for p in parts[:-1]], parts[-1]


def fill(name, t, formula):
    """A tensor whose element is formula(linear index) (MLIR scalar code)."""
    shape, _ = tensor_shape(t)
    n = len(shape)
    dims = ", ".join(f"d{i}" for i in range(n))
    lines = [f"  {name}_e = tensor.empty() : {t}",
             f"  {name} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>], "
             f"iterator_types = [{parallel(n)}]}} outs({name}_e : {t}) {{",
             "  ^bb0(%out: f32):"]
    lin = None
    stride = 1
    for i in reversed(range(n)):
        lines.append(f"    %i{i} = linalg.index {i} : index")
        lines.append(f"    %s{i} = arith.constant {stride} : index")
        lines.append(f"    %p{i} = arith.muli %i{i}, %s{i} : index")
        if lin is None:
            lin = f"%p{i}"
        else:
            lines.append(f"    %l{i} = arith.addi {lin}, %p{i} : index")
            lin = f"%l{i}"
        stride *= shape[i]
    if lin is None:
        lines.append("    %zero = arith.constant 0 : index")
        lin = "%zero"
    lines.append(f"    %li = arith.index_cast {lin} : index to i64")
    lines.append("    %lf = arith.sitofp %li : i64 to f32")
    lines += ["    " + l for l in formula(shape)]
    lines.append("    linalg.yield %v : f32")
    lines.append(f"  }} -> {t}")
    return lines


def smooth(scale, phase):
    return lambda shape: [f"%k0 = arith.constant {0.37:.2f} : f32", "%k1 = arith.mulf %lf, %k0 : f32",
                          f"%k2 = arith.constant {phase:.3f} : f32", "%k3 = arith.addf %k1, %k2 : f32",
                          "%k4 = math.sin %k3 : f32", f"%k5 = arith.constant {scale:.4f} : f32",
                          "%v = arith.mulf %k4, %k5 : f32"]


def one_hot(shape):
    classes = shape[-1]
    # row = lf / classes; col = lf mod classes; hot when col == row mod classes
    return [f"%c = arith.constant {classes} : i64", "%row = arith.divsi %li, %c : i64",
            "%col = arith.remsi %li, %c : i64", "%want = arith.remsi %row, %c : i64",
            "%hot = arith.cmpi eq, %col, %want : i64", "%one = arith.constant 1.0 : f32",
            "%zf = arith.constant 0.0 : f32", "%v = arith.select %hot, %one, %zf : f32"]


def build_main(text, num_inputs, eps, one_hot_labels, only=None):
    args = parse_signature(text)
    lines = ["func.func private @printMemrefF32(memref<*xf32>)", "func.func @main() {"]
    names = []
    for k, (name, t) in enumerate(args):
        v = f"%arg_{k}"
        if one_hot_labels and name == "%y_onehot":
            lines += fill(v, t, one_hot)
        else:
            lines += fill(v, t, smooth(0.5 if k >= num_inputs else 1.0, 0.1 * k))
        names.append((v, t))
    params = names[num_inputs:]
    variants = {}
    for sign, tag in ((1.0, "plus"), (-1.0, "minus")):
        moved = []
        for k, (v, t) in enumerate(params):
            d = f"%dir_{k}"
            if tag == "plus":
                lines += fill(d, t, smooth(0.0 if only is not None and only != k else 1.0,
                                           1.3 + 0.7 * k))
            shape, _ = tensor_shape(t)
            n = len(shape)
            dims = ", ".join(f"d{i}" for i in range(n))
            m = f"%{tag}_{k}"
            lines += [f"  {m}_e = tensor.empty() : {t}",
                      f"  {m} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>, "
                      f"affine_map<({dims}) -> ({dims})>, affine_map<({dims}) -> ({dims})>], "
                      f"iterator_types = [{parallel(n)}]}} ins({v}, {d} : {t}, {t}) outs({m}_e : {t}) {{",
                      "  ^bb0(%a: f32, %b: f32, %o: f32):",
                      f"    %ep = arith.constant {sign * eps:.6e} : f32",
                      "    %sc = arith.mulf %b, %ep : f32",
                      "    %r = arith.addf %a, %sc : f32",
                      "    linalg.yield %r : f32",
                      f"  }} -> {t}"]
            moved.append((m, t))
        variants[tag] = moved
    result_types = ", ".join(["tensor<f32>"] + [t for _, t in params])

    def call(tag, ps):
        all_args = names[:num_inputs] + ps
        lines.append(f"  %r_{tag}:{len(params) + 1} = func.call @train_step({', '.join(v for v, _ in all_args)}) : "
                     f"({', '.join(t for _, t in all_args)}) -> ({result_types})")

    def show(v, t):
        shape, _ = tensor_shape(t)
        mt = "memref<" + "x".join(str(d) for d in shape) + ("x" if shape else "") + "f32>"
        tag = v.replace("%", "").replace("#", "_")
        tag += f"_{len(lines)}"
        lines.append(f"  %m_{tag} = bufferization.to_buffer {v} : {t} to {mt}")
        lines.append(f"  %u_{tag} = memref.cast %m_{tag} : {mt} to memref<*xf32>")
        lines.append(f"  func.call @printMemrefF32(%u_{tag}) : (memref<*xf32>) -> ()")

    call("base", params)
    call("plus", variants["plus"])
    call("minus", variants["minus"])
    # L+ - L- in f32 before printing: printMemrefF32 shows 6 digits, too few
    # for the difference of two nearby losses.
    lines += ["  %delta_e = tensor.empty() : tensor<f32>",
              "  %delta = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, "
              "affine_map<() -> ()>], iterator_types = []} ins(%r_plus#0, %r_minus#0 : tensor<f32>, tensor<f32>) "
              "outs(%delta_e : tensor<f32>) {",
              "  ^bb0(%a: f32, %b: f32, %o: f32):",
              "    %d = arith.subf %a, %b : f32",
              "    linalg.yield %d : f32",
              "  } -> tensor<f32>"]
    show("%r_base#0", "tensor<f32>")
    show("%delta", "tensor<f32>")
    show("%delta", "tensor<f32>")
    for k, (v, t) in enumerate(params):
        show(v, t)
        show(f"%r_base#{k + 1}", t)
        show(f"%dir_{k}", t)
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def numbers(block):
    return [float(x) for x in re.findall(r"-?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan|inf)", block)]


def run_reference(module, pipeline=PIPELINE):
    """Lowers `module` with upstream's passes, runs its @main with
    mlir-runner and returns what each printMemref printed, as numbers."""
    lowered = subprocess.run([f"{LLVM}/bin/mlir-opt", f"--pass-pipeline={pipeline}"], input=module,
                             capture_output=True, text=True)
    if lowered.returncode:
        sys.exit("mlir-opt failed:\n" + lowered.stderr[:4000])
    run = subprocess.run([f"{LLVM}/bin/mlir-runner", "-e", "main", "-entry-point-result=void",
                          f"-shared-libs={LLVM}/lib/libmlir_runner_utils.so,{LLVM}/lib/libmlir_c_runner_utils.so"],
                         input=lowered.stdout, capture_output=True, text=True)
    if run.returncode:
        sys.exit("mlir-runner failed:\n" + run.stderr[:4000])
    return [numbers(b.split("data =", 1)[1]) for b in run.stdout.split("Unranked Memref")[1:]]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("file")
    p.add_argument("--inputs", type=int, default=2, help="data inputs before the parameters")
    p.add_argument("--lr", type=float, required=True)
    p.add_argument("--eps", type=float, default=1e-2)
    p.add_argument("--tolerance", type=float, default=2e-2)
    p.add_argument("--one-hot-labels", action="store_true")
    p.add_argument("--param", type=int, help="perturb only this parameter (0-based)")
    p.add_argument("--f64", action="store_true", help="evaluate in double precision")
    a = p.parse_args()
    text = open(a.file).read()
    module = text + build_main(text, a.inputs, a.eps, a.one_hot_labels, a.param)
    if a.f64:
        module = (module.replace("0xFF800000 : f32", "0xFFF0000000000000 : f32")
                  .replace("f32", "f64").replace("printMemrefF64", "printMemrefF64"))
        module = module.replace("@printMemrefF32", "@printMemrefF64")
    values = run_reference(module)
    loss, delta = values[0][0], values[1][0]
    directional = 0.0
    for k in range(3, len(values), 3):
        param, updated, direction = values[k], values[k + 1], values[k + 2]
        directional += sum((pv - uv) / a.lr * dv for pv, uv, dv in zip(param, updated, direction))
    finite = delta / (2 * a.eps)
    scale = max(abs(directional), abs(finite), 1e-4)
    error = abs(directional - finite) / scale
    ok = math.isfinite(loss) and error <= a.tolerance
    print(f"{a.file}: loss {loss:.6g}, directional derivative from the step {directional:.6g}, "
          f"finite differences {finite:.6g}, relative error {error:.2e}: {'ok' if ok else 'MISMATCH'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
