#!/usr/bin/env python3
"""ByteIR's library calls and its ResNet-18 training step on hwagent, checked
against PyTorch 1.13 (Debian's python3-torch: run with /usr/bin/python3).

    scripts/byteir.py ops --run build/bin/hwagent-run --work DIR
        One small instance of every library call hwagent-lower-library-calls
        lowers (convolution forward and both gradients, batch norm training
        and its gradient, max pooling and its gradient, sums and maxima,
        matmuls; f16 and f32; strides, padding, dilations, groups, layouts),
        run by hwagent-run on the CPU and compared with PyTorch computing the
        same op (F.conv2d, autograd, F.batch_norm, F.max_pool2d, sum/amax,
        matmul) from the same values. Prints the worst error of each; exits 1
        when one exceeds its tolerance.
    scripts/byteir.py step --run build/bin/hwagent-run --model resnet18_train_step_byteir.mlir
                           --work DIR [--seed S] [--threads N]
        The whole training step (batch 4, 3x224x224, fp16): names its
        arguments after torchvision's resnet18 state_dict (annotate), feeds
        it torchvision's seeded weights (--init) and a random batch with
        one-hot labels (--data), and compares the loss and the 62
        gradients hwagent returns (--no-updates --outputs) with
        (a) the same step computed op by op in PyTorch with ByteIR's
            precision (f16 between ops, f32 inside them), and
        (b) torchvision's ResNet-18 in f32 with autograd.
    scripts/byteir.py annotate --model IN --out OUT
        Only the renaming: @main's arguments get {hwagent.name} from
        torchvision's state_dict (x, y, then the parameters and BatchNorm
        buffers) and the parameters {hwagent.role = "parameter"}; its results
        are named loss and grad.<parameter>.

docs/byteir.md has the figures and what each comparison shows.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import time

import numpy as np

# ---------------------------------------------------------------------------
# safetensors (the layout: little-endian header length, JSON header, data)
# ---------------------------------------------------------------------------

DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I32": "<i4", "I64": "<i8", "BOOL": "|b1"}


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, array in tensors:
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + b:8 + n + e],
                                  dtype=DTYPES[info["dtype"]]).reshape(info["shape"]).copy()
    return out


def run(cmd, log):
    start = time.time()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + proc.stdout)
    if proc.returncode != 0:
        sys.stdout.write(proc.stdout)
        raise SystemExit(f"byteir.py: {' '.join(cmd)} failed (exit {proc.returncode})")
    return proc.stdout, time.time() - start


# ---------------------------------------------------------------------------
# ops: one instance of every callee
# ---------------------------------------------------------------------------

def tensor_type(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


def dense(values, shape=None):
    values = list(values)
    shape = shape or [len(values)]
    if len(shape) == 2:
        rows = [values[i * shape[1]:(i + 1) * shape[1]] for i in range(shape[0])]
        text = "[" + ", ".join("[" + ", ".join(map(str, r)) + "]" for r in rows) + "]"
    else:
        text = "[" + ", ".join(map(str, values)) + "]"
    return f"dense<{text}> : {tensor_type(shape, 'i64')}"


class Case:
    """One library call: its inputs (name, shape, dtype of the operand), its
    outputs (shape, dtype), attributes and PyTorch's result (f32 tensors from
    the inputs, already rounded to their operand dtype)."""

    def __init__(self, name, base, inputs, outputs, attrs, reference, integer=None):
        self.name, self.base, self.inputs, self.outputs = name, base, inputs, outputs
        self.attrs, self.reference, self.integer = attrs, reference, integer

    @property
    def callee(self):
        return (f"{self.base}_{''.join(d for _, _, d in self.inputs)}_"
                f"{''.join(d for _, d in self.outputs)}")


def conv_attrs(stride=(1, 1), padding=((0, 0), (0, 0)), lhs=(1, 1), rhs=(1, 1), groups=1,
               layout="NCHW", kernel_layout=None):
    flat = [v for pair in padding for v in pair]
    return (f'batch_group_count = 1 : i64, feature_group_count = {groups} : i64, '
            f'input_layout = "{layout}", kernel_layout = "{kernel_layout or layout}", '
            f'output_layout = "{layout}", lhs_dilation = {dense(lhs)}, '
            f'padding = {dense(flat, [2, 2])}, rhs_dilation = {dense(rhs)}, '
            f'window_strides = {dense(stride)}')


def backward_attrs(stride, pad, groups=1):
    # ByteIR's convolution gradients: the forward's stride and a flat
    # [h_lo, h_hi, w_lo, w_hi] padding (math/helper.cc).
    return (f'batch_group_count = 1 : i64, feature_group_count = {groups} : i64, '
            f'input_layout = "NCHW", kernel_layout = "NCHW", output_layout = "NCHW", '
            f'padding = {dense([pad, pad, pad, pad])}, window_strides = {dense([stride, stride])}')


def pool_attrs(k, s, p):
    return (f"padding = {dense([0, 0, 0, 0, p, p, p, p], [4, 2])}, "
            f"window_dimensions = {dense([1, 1, k, k])}, window_strides = {dense([1, 1, s, s])}")


def cases():
    import torch
    import torch.nn.functional as F

    def grad_of(fn, args, wrt, dy):
        args = [a.clone().requires_grad_(i in wrt) for i, a in enumerate(args)]
        out = fn(*args)
        grads = torch.autograd.grad(out, [args[i] for i in wrt], dy)
        return [g.detach() for g in grads]

    def dilate(x, f):
        n, c, h, w = x.shape
        z = torch.zeros(n, c, (h - 1) * f[0] + 1, (w - 1) * f[1] + 1, dtype=x.dtype)
        z[:, :, ::f[0], ::f[1]] = x
        return z

    out = []
    # Convolution forward: the three ResNet-18 shapes, then the general
    # semantics (asymmetric padding, dilations, groups, NHWC) in f32.
    for tag, (n, c, h, f, k, s, p) in {"7x7s2": (2, 3, 16, 8, 7, 2, 3), "3x3s1": (2, 8, 8, 8, 3, 1, 1),
                                       "1x1s2": (2, 8, 8, 16, 1, 2, 0)}.items():
        oh = (h + 2 * p - k) // s + 1
        out.append(Case(f"conv_{tag}", "ConvOp", [("x", (n, c, h, h), "f16"), ("w", (f, c, k, k), "f16")],
                        [((n, f, oh, oh), "f16")], conv_attrs((s, s), ((p, p), (p, p))),
                        lambda a, s=s, p=p: [F.conv2d(a["x"], a["w"], stride=s, padding=p)]))
    out.append(Case("conv_general", "ConvOp", [("x", (2, 4, 9, 8), "f32"), ("w", (6, 2, 3, 2), "f32")],
                    [((2, 6, 4, 8), "f32")],
                    conv_attrs((2, 1), ((1, 2), (0, 1)), rhs=(2, 1), groups=2),
                    lambda a: [F.conv2d(F.pad(a["x"], (0, 1, 1, 2)), a["w"], stride=(2, 1),
                                        dilation=(2, 1), groups=2)]))
    out.append(Case("conv_lhs_dilation", "ConvOp", [("x", (1, 3, 5, 5), "f32"), ("w", (4, 3, 3, 3), "f32")],
                    [((1, 4, 11, 11), "f32")], conv_attrs((1, 1), ((2, 2), (2, 2)), lhs=(2, 2)),
                    lambda a: [F.conv2d(dilate(a["x"], (2, 2)), a["w"], padding=2)]))
    out.append(Case("conv_nhwc", "ConvOp", [("x", (2, 6, 6, 4), "f16"), ("w", (5, 3, 3, 4), "f16")],
                    [((2, 3, 3, 5), "f16")], conv_attrs((2, 2), ((1, 1), (1, 1)), layout="NHWC"),
                    lambda a: [F.conv2d(a["x"].permute(0, 3, 1, 2), a["w"].permute(0, 3, 1, 2),
                                        stride=2, padding=1).permute(0, 2, 3, 1)]))
    # Convolution gradients: ByteIR's shapes (3x3 stride 1 and 2, 1x1 stride
    # 2, 7x7 stride 2) in f16, grouped in f32; autograd of F.conv2d.
    for tag, (n, c, h, f, k, s, p, g, dt) in {
            "3x3s1": (2, 8, 8, 8, 3, 1, 1, 1, "f16"), "3x3s2": (2, 4, 8, 8, 3, 2, 1, 1, "f16"),
            "1x1s2": (2, 4, 8, 8, 1, 2, 0, 1, "f16"), "7x7s2": (2, 3, 16, 8, 7, 2, 3, 1, "f16"),
            "groups": (2, 4, 7, 6, 3, 2, 1, 2, "f32")}.items():
        oh = (h + 2 * p - k) // s + 1
        xs, ws, ys = (n, c, h, h), (f, c // g, k, k), (n, f, oh, oh)

        def conv(x, w, s=s, p=p, g=g):
            return F.conv2d(x, w, stride=s, padding=p, groups=g)
        out.append(Case(f"dgrad_{tag}", "ConvBackwardDataOp", [("dy", ys, dt), ("w", ws, dt)],
                        [(xs, dt)], backward_attrs(s, p, g),
                        lambda a, xs=xs, conv=conv: grad_of(conv, [torch.zeros(xs), a["w"]], [0], a["dy"])))
        out.append(Case(f"wgrad_{tag}", "ConvBackwardFilterOp", [("x", xs, dt), ("dy", ys, dt)],
                        [(ws, dt)], backward_attrs(s, p, g),
                        lambda a, ws=ws, conv=conv: grad_of(conv, [a["x"], torch.zeros(ws)], [1], a["dy"])))
    # Batch normalization (batch statistics, biased variance).
    bn_attrs = "epsilon = 9.99999974E-6 : f32, feature_index = 1 : i64"
    eps = float(np.float32(9.99999974e-6))

    def bn(x, w, b):
        return F.batch_norm(x, None, None, w, b, training=True, eps=eps)
    out.append(Case("bn_train", "BatchNormTrainingOp",
                    [("x", (4, 8, 5, 5), "f16"), ("scale", (8,), "f32"), ("offset", (8,), "f32")],
                    [((4, 8, 5, 5), "f16")], bn_attrs, lambda a: [bn(a["x"], a["scale"], a["offset"])]))
    out.append(Case("bn_train_stats", "BatchNormTrainingOp",
                    [("x", (3, 5, 4, 6), "f32"), ("scale", (6,), "f32"), ("offset", (6,), "f32")],
                    [((3, 5, 4, 6), "f32"), ((6,), "f32"), ((6,), "f32")],
                    "epsilon = 1.0E-3 : f32, feature_index = 3 : i64",
                    lambda a: [F.batch_norm(a["x"].permute(0, 3, 1, 2), None, None, a["scale"],
                                            a["offset"], training=True, eps=float(np.float32(1e-3)))
                               .permute(0, 2, 3, 1),
                               a["x"].mean((0, 1, 2)), a["x"].var((0, 1, 2), unbiased=False)]))
    out.append(Case("bn_grad", "BatchNormGradOp",
                    [("x", (4, 8, 5, 5), "f16"), ("scale", (8,), "f32"), ("dy", (4, 8, 5, 5), "f16")],
                    [((4, 8, 5, 5), "f16"), ((8,), "f32"), ((8,), "f32")], bn_attrs,
                    lambda a: grad_of(bn, [a["x"], a["scale"], torch.zeros(8)], [0, 1, 2], a["dy"])))
    # Max pooling: ResNet-18's 3x3 stride 2 padding 1; the inputs are
    # quantized so that windows hold ties (the first maximum wins).
    out.append(Case("maxpool", "PoolMaxOp", [("x", (2, 4, 9, 9), "f16")], [((2, 4, 5, 5), "f16")],
                    "base_dilations = dense<1> : tensor<4xi64>, window_dilations = dense<1> : "
                    "tensor<4xi64>, " + pool_attrs(3, 2, 1),
                    lambda a: [F.max_pool2d(a["x"], 3, 2, 1)], integer="x"))
    out.append(Case("maxpool_grad", "PoolMaxGradOp", [("x", (2, 4, 9, 9), "f16"), ("dy", (2, 4, 5, 5), "f16")],
                    [((2, 4, 9, 9), "f16")], pool_attrs(3, 2, 1),
                    lambda a: grad_of(lambda x: F.max_pool2d(x, 3, 2, 1), [a["x"]], [0], a["dy"]),
                    integer="x"))
    # Reductions and matmuls, as the step uses them.
    out.append(Case("sum_hw", "ReduceSumOp", [("x", (4, 8, 7, 7), "f16")], [((4, 8), "f16")],
                    "dimensions = dense<[3, 2]> : tensor<2xi64>", lambda a: [a["x"].sum((2, 3))]))
    out.append(Case("sum_all", "ReduceSumOp", [("x", (4, 10), "f32")], [((), "f32")],
                    "dimensions = dense<[0, 1]> : tensor<2xi64>", lambda a: [a["x"].sum()]))
    out.append(Case("max_row", "ReduceMaxOp", [("x", (4, 10), "f16")], [((4,), "f16")],
                    "dimensions = dense<1> : tensor<1xi64>", lambda a: [a["x"].amax(1)]))
    out.append(Case("matmul_nt", "MatmulOp", [("a", (4, 32), "f16"), ("b", (10, 32), "f16")], [((4, 10), "f16")],
                    "lhs_contracting_dimension = 1 : i64, rhs_contracting_dimension = 1 : i64",
                    lambda a: [a["a"] @ a["b"].T]))
    out.append(Case("matmul_nn", "MatmulOp", [("a", (4, 10), "f16"), ("b", (10, 32), "f16")], [((4, 32), "f16")],
                    "lhs_contracting_dimension = 1 : i64, rhs_contracting_dimension = 0 : i64",
                    lambda a: [a["a"] @ a["b"]]))
    out.append(Case("matmul_tn_t", "MatmulOp", [("a", (4, 32), "f16"), ("b", (4, 10), "f16")], [((10, 32), "f16")],
                    "lhs_contracting_dimension = 0 : i64, output_transpose, rhs_contracting_dimension = 0 : i64",
                    lambda a: [(a["a"].T @ a["b"]).T]))
    return out


def ops_module(all_cases):
    """One public function: every case's inputs as f32 parameters (rounded to
    f16 inside where the call takes f16), its outputs widened to f32."""
    args, results, body, returns = [], ['tensor<f32> {hwagent.name = "loss"}'], [], ["%loss"]
    rtypes = ["tensor<f32>"]
    body.append("    %loss = arith.constant dense<0.0> : tensor<f32>")
    for c in all_cases:
        operands, types = [], []
        for name, shape, dt in c.inputs:
            arg = f"%{c.name}_{name}"
            args.append(f'{arg}: {tensor_type(shape, "f32")} {{hwagent.name = "{c.name}.{name}", '
                        f'hwagent.role = "parameter"}}')
            if dt == "f16":
                body.append(f"    {arg}_h = arith.truncf {arg} : {tensor_type(shape, 'f32')} to "
                            f"{tensor_type(shape, 'f16')}")
                arg += "_h"
            operands.append(arg)
            types.append(tensor_type(shape, dt))
        out_types = []
        for j, (shape, dt) in enumerate(c.outputs):
            body.append(f"    %{c.name}_o{j} = tensor.empty() : {tensor_type(shape, dt)}")
            operands.append(f"%{c.name}_o{j}")
            out_types.append(tensor_type(shape, dt))
        k = len(c.outputs)
        lhs = f"%{c.name}" + (f":{k}" if k > 1 else "")
        body.append(f'    {lhs} = "byre.compute_on_tensor"({", ".join(operands)}) {{callee = "{c.callee}", '
                    f'{c.attrs}, operandSegmentSizes = array<i32: {len(c.inputs)}, {k}>}} : '
                    f'({", ".join(types + out_types)}) -> ({", ".join(out_types)})')
        for j, (shape, dt) in enumerate(c.outputs):
            value = f"%{c.name}" + (f"#{j}" if k > 1 else "")
            if dt == "f16":
                body.append(f"    %{c.name}_r{j} = arith.extf {value} : {tensor_type(shape, 'f16')} to "
                            f"{tensor_type(shape, 'f32')}")
                value = f"%{c.name}_r{j}"
            returns.append(value)
            rtypes.append(tensor_type(shape, "f32"))
            results.append(f'{tensor_type(shape, "f32")} {{hwagent.name = "{c.name}.out{j}"}}')
    return ("// Generated by scripts/byteir.py ops: one instance of every library call.\n"
            "func.func @library_calls(" + ", ".join(args) + ") -> (" + ", ".join(results) + ") {\n"
            + "\n".join(body) + "\n    return " + ", ".join(returns) + " : " + ", ".join(rtypes)
            + "\n}\n")


def ops(args):
    import torch
    torch.set_num_threads(1)
    os.makedirs(args.work, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    all_cases = cases()
    values = {}
    for c in all_cases:
        for name, shape, dt in c.inputs:
            v = rng.standard_normal(shape).astype(np.float32)
            if c.integer == name:
                v = np.round(v * 2) / 2  # few distinct values: windows with ties
            if dt == "f16":
                v = v.astype(np.float16).astype(np.float32)
            values[f"{c.name}.{name}"] = v
    module = os.path.join(args.work, "library_calls.mlir")
    with open(module, "w") as f:
        f.write(ops_module(all_cases))
    init = os.path.join(args.work, "library_calls_in.safetensors")
    write_safetensors(init, sorted(values.items()))
    outputs = os.path.join(args.work, "library_calls_out.safetensors")
    _, seconds = run([args.run, module, "--allow-unregistered-dialect",
                      "--no-updates", "--steps", "1", "--backend", "cpu", "--init", init,
                      "--outputs", outputs, "--progress", "lines"],
                     os.path.join(args.work, "library_calls.log"))
    got = read_safetensors(outputs)
    worst_ok = True
    print(f"{'case':<22} {'callee':<36} {'max |err| / max |ref|':>22}  tolerance")
    for c in all_cases:
        inputs = {name: torch.from_numpy(values[f"{c.name}.{name}"]) for name, _, _ in c.inputs}
        refs = c.reference(inputs)
        for j, ((shape, dt), ref) in enumerate(zip(c.outputs, refs)):
            ref = ref.detach().float()
            if dt == "f16":
                ref = ref.half().float()
            ref = ref.numpy().reshape(shape)
            mine = got[f"{c.name}.out{j}"].astype(np.float32).reshape(shape)
            scale = max(float(np.abs(ref).max()), 1e-30)
            err = float(np.abs(mine - ref).max()) / scale
            # f16 results: a couple of ulps (f32 sums in another order round
            # differently); f32 results: accumulation order only.
            tol = 4e-3 if dt == "f16" else 1e-5
            ok = err <= tol and np.isfinite(mine).all()
            worst_ok &= ok
            print(f"{c.name + '.out' + str(j):<22} {c.callee:<36} {err:>22.2e}  {tol:.0e}"
                  f"{'' if ok else '  FAILED'}")
    print(f"byteir.py: {len(all_cases)} library calls in one hwagent-run ({seconds:.1f} s)")
    if not worst_ok:
        raise SystemExit("byteir.py: some library call differs from PyTorch")


# ---------------------------------------------------------------------------
# step: the whole ResNet-18 training step
# ---------------------------------------------------------------------------

def resnet18_names():
    """@main's argument names (x, y, then torchvision's state_dict without
    num_batches_tracked) and which of them are parameters, in order."""
    import torchvision
    model = torchvision.models.resnet18()
    state = [k for k in model.state_dict() if not k.endswith("num_batches_tracked")]
    params = [k for k, _ in model.named_parameters()]
    return ["x", "y"] + state, params


def annotate_text(text):
    names, params = resnet18_names()
    m = re.search(r"func\.func @main\((.*?)\) -> \((.*?)\)(\s+attributes\s+\{[^}]*\})?\s*\{", text, re.S)
    if not m:
        raise SystemExit("byteir.py: no @main in the model")
    arg_list = re.findall(r"(%arg\d+): (tensor<[^>]*>)", m.group(1))
    res_list = re.findall(r"tensor<[^>]*>", m.group(2))
    if len(arg_list) != len(names) or len(res_list) != 1 + len(params):
        raise SystemExit(f"byteir.py: @main has {len(arg_list)} arguments and {len(res_list)} results; "
                         f"torchvision's resnet18 gives {len(names)} and {1 + len(params)}")
    new_args = []
    for (arg, ty), name in zip(arg_list, names):
        role = ', hwagent.role = "parameter"' if name not in ("x", "y") else ""
        new_args.append(f'{arg}: {ty} {{hwagent.name = "{name}"{role}}}')
    new_res = [f'{res_list[0]} {{hwagent.name = "loss"}}']
    new_res += [f'{ty} {{hwagent.name = "grad.{p}"}}' for ty, p in zip(res_list[1:], params)]
    head = f"func.func @main({', '.join(new_args)}) -> ({', '.join(new_res)}){m.group(3) or ''} {{"
    return text[:m.start()] + head + text[m.end():]


def to_f32(text):
    """The same step computed in f32 throughout (a rewrite of the test's
    copy, never of the model): every f16 type becomes f32, the conversions
    between them identities, and the average pool's 1/49 (0.020401 in f16)
    exact, so that the step is comparable with torchvision's in f32."""
    text = text.replace("f16", "f32").replace("2.040100e-02 : f32", "0.0204081632 : f32")
    return re.sub(r"(%\S+) = arith\.(?:extf|truncf) (%\S+) : f32 to f32",
                  r"\1 = arith.maximumf \2, \2 : f32", text)


def annotate(args):
    with open(args.model) as f:
        text = f.read()
    with open(args.out, "w") as f:
        f.write("// Annotated by scripts/byteir.py annotate: argument and result names from\n"
                "// torchvision's resnet18 (state_dict order).\n" + annotate_text(text))


def reference_fp16(model, x, y):
    """ByteIR's step op by op in PyTorch: f16 between ops, each library call
    computed in f32 from f16 values and rounded (as cuDNN/cuBLAS do), the
    elementwise functions in f16 (each f16 op rounded once). Returns the
    loss as a differentiable tensor: autograd through the same graph rounds
    every gradient to f16 where the forward rounds its value (the backward
    of t.half().float()), as the step stores its gradients in f16."""
    import torch
    import torch.nn.functional as F

    def h(t):
        return t.half().float()

    def conv(a, c):
        return h(F.conv2d(a, h(c.weight), stride=c.stride, padding=c.padding))

    def bn(a, b):
        return h(F.batch_norm(a, None, None, b.weight, b.bias, training=True, eps=b.eps))

    def block(a, blk):
        out = torch.relu(bn(conv(a, blk.conv1), blk.bn1))
        out = bn(conv(out, blk.conv2), blk.bn2)
        short = bn(conv(a, blk.downsample[0]), blk.downsample[1]) if blk.downsample is not None else a
        return torch.relu(h(out + short))

    a = torch.relu(bn(conv(h(x), model.conv1), model.bn1))
    a = F.max_pool2d(a, 3, 2, 1)
    for layer in (model.layer1, model.layer2, model.layer3, model.layer4):
        for blk in layer:
            a = block(a, blk)
    pooled = h(h(a.sum((2, 3))) * h(torch.tensor(1.0 / 49)))
    logits = h(h(pooled @ h(model.fc.weight).T) + h(model.fc.bias))
    shifted = h(logits - logits.amax(1, keepdim=True))
    total = h(h(torch.exp(shifted)).sum(1, keepdim=True))
    logp = h(shifted - h(torch.log(total)))
    return -(logp * y).sum() / x.shape[0]


def compare_floor(a, b, params):
    return max(float(np.linalg.norm(a[p] - b[p]) / max(np.linalg.norm(b[p]), 1e-30)) for p in params)


def step(args):
    import torch
    import torch.nn.functional as F
    import torchvision
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    os.makedirs(args.work, exist_ok=True)
    model = torchvision.models.resnet18()
    # BatchNorm's scale and shift away from 1 and 0, so that their gradients
    # and the paths through them are exercised.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0, 0.1)
    model.train()
    x = torch.randn(4, 3, 224, 224)
    labels = torch.randint(0, 1000, (4,))
    y = F.one_hot(labels, 1000).float()

    with open(args.model) as f:
        text = annotate_text(f.read())
    if args.precision == "f32":
        text = to_f32(text)
    module = os.path.join(args.work, f"resnet18_train_step_byteir_{args.precision}.mlir")
    with open(module, "w") as f:
        f.write(text)
    names, params = resnet18_names()
    state = model.state_dict()
    init = os.path.join(args.work, "resnet18_init.safetensors")
    write_safetensors(init, [(k, state[k].numpy()) for k in names[2:]])
    data = os.path.join(args.work, "resnet18_batch.npz")
    np.savez(data, x=x.numpy(), y=y.numpy())
    outputs = os.path.join(args.work, "resnet18_out.safetensors")
    log, seconds = run([args.run, module, "--allow-unregistered-dialect",
                        "--no-updates", "--steps", str(args.steps), "--backend", "cpu", "--init", init,
                        "--data", data, "--shuffle=false", "--outputs", outputs, "--progress", "lines", "--cpu-threads", str(args.threads)],
                       os.path.join(args.work, "resnet18_run.log"))
    for line in log.splitlines():
        if line.startswith("hwagent-run:") or line.startswith("step"):
            print(line)
    got = read_safetensors(outputs)

    def gradients(loss):
        model.zero_grad()
        loss.backward()
        return {p: t.grad.double().numpy().copy() for p, t in model.named_parameters()}

    def torchvision_step(m, xs, ys):
        return -(F.log_softmax(m(xs), 1) * ys).sum() / xs.shape[0]

    def compare(reference, what):
        errors = []
        for p in params:
            g, h = reference[p], got[f"grad.{p}"].astype(np.float64)
            errors.append((float(np.linalg.norm(h - g) / max(np.linalg.norm(g), 1e-300)), p))
        errors.sort()
        print(f"gradients vs {what}: ||g_hwagent - g_ref|| / ||g_ref|| median "
              f"{errors[len(errors) // 2][0]:.2e}, worst {errors[-1][0]:.2e} ({errors[-1][1]}), "
              f"{len(errors)} tensors")
        return errors[-1][0]

    def relative(a, b):
        return abs(a - b) / abs(b)

    mine = float(got["loss"])
    # torchvision in f32 (timed after one warm-up step).
    gradients(torchvision_step(model, x, y))
    start = time.time()
    loss32 = torchvision_step(model, x, y)
    grads32 = gradients(loss32)
    torch_seconds = time.time() - start
    ref32 = float(loss32)
    if args.precision == "f32":
        # The f32 step against torchvision in f64: f32 rounding only.
        loss16 = None
        model.double()
        loss64 = torchvision_step(model, x.double(), y.double())
        grads64 = gradients(loss64)
        ref64 = float(loss64)
        print(f"loss (f32 step): hwagent {mine:.7f}, torchvision f64 {ref64:.7f} (relative difference "
              f"{relative(mine, ref64):.2e}), torchvision f32 {ref32:.7f} ({relative(mine, ref32):.2e})")
        worst = compare(grads64, "torchvision f64")
        floor = compare_floor(grads32, grads64, params)
        print(f"torchvision f32 vs f64: worst {floor:.2e}")
        ok = relative(mine, ref64) <= args.loss_tol and worst <= args.grad_tol
    else:
        # (a) ByteIR's precision op by op; (b) torchvision in f32. f16
        # gradients move by 10-20 % when the input moves by 1e-4 (maxima and
        # ReLU masks flip; docs/byteir.md): hwagent's must be as close to
        # f32's as PyTorch's own f16 emulation of the step is.
        loss16 = reference_fp16(model, x, y)
        grads16 = gradients(loss16)
        ref16 = float(loss16)
        print(f"loss (f16 step): hwagent {mine:.6f}, PyTorch op by op with ByteIR's f16 {ref16:.6f} "
              f"(relative difference {relative(mine, ref16):.2e}), torchvision f32 {ref32:.6f} "
              f"({relative(mine, ref32):.2e})")
        compare(grads16, "PyTorch op by op with ByteIR's f16")
        worst = compare(grads32, "torchvision f32")
        floor = compare_floor(grads16, grads32, params)
        print(f"PyTorch's f16 emulation vs torchvision f32: worst {floor:.2e}")
        ok = (relative(mine, ref16) <= args.loss_tol and relative(mine, ref32) <= 10 * args.loss_tol
              and worst <= 2 * floor)
    print(f"PyTorch f32 forward+backward: {torch_seconds:.3f} s on {args.threads} threads (measured, "
          f"after a warm-up step)")
    if not ok:
        raise SystemExit("byteir.py: the step differs from PyTorch beyond the tolerances")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("ops")
    p.add_argument("--run", required=True, help="the hwagent-run binary")
    p.add_argument("--work", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(fn=ops)
    p = sub.add_parser("step")
    p.add_argument("--run", required=True, help="the hwagent-run binary")
    p.add_argument("--model", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--steps", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--precision", choices=["f16", "f32"], default="f16",
                   help="the step as ByteIR wrote it (f16), or rewritten to f32 throughout")
    p.add_argument("--loss-tol", type=float, default=None,
                   help="relative loss difference allowed (f16: vs the f16 emulation, 1e-3, and 10x that vs "
                        "f32; f32: vs f64, 1e-5)")
    p.add_argument("--grad-tol", type=float, default=5e-3,
                   help="f32: the largest relative gradient difference from f64 allowed")
    p.set_defaults(fn=step)
    p = sub.add_parser("annotate")
    p.add_argument("--model", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(fn=annotate)
    args = parser.parse_args()
    if getattr(args, "loss_tol", 0) is None:
        args.loss_tol = 1e-5 if args.precision == "f32" else 1e-3
    args.fn(args)


if __name__ == "__main__":
    main()
