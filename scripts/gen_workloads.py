#!/usr/bin/env python3
"""Generates the bundled training-step workloads in examples/.

Each workload is one function `train_step` in linalg-on-tensors (+ scf for the
LSTM's recurrence): forward, loss, backward and an SGD update, with fixed
shapes. Signature convention (docs/workloads.md): data inputs first, then the
parameters; results are the scalar loss followed by the updated parameters in
the same order.

    scripts/gen_workloads.py            # writes examples/*_train_step.mlir and llm_*.mlir
    scripts/gen_workloads.py --small    # tiny shapes, to stdout-named files in --out
    scripts/gen_workloads.py --llm 8b --phase decode --weights int8 --layers 32 --head
                                        # one LLM inference step (scripts/llm_workloads.py)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llm_workloads  # noqa: E402 (scripts/ is not a package)

ID = {}


def shape_str(shape, dtype="f32"):
    if not shape:
        return f"tensor<{dtype}>"
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{dtype}>"


def dims(n):
    return ", ".join(f"d{i}" for i in range(n))


def amap(n, exprs):
    return f"affine_map<({dims(n)}) -> ({', '.join(exprs)})>"


class Emitter:
    """Builds the body of one func.func in SSA form."""

    def __init__(self):
        self.lines = []
        # Scalar constants go first, so that bodies and loops can use them.
        self.consts = []
        self.count = 0
        self.scalars = {}
        self.shapes = {}
        self.indent = "  "

    def fresh(self, hint="v"):
        self.count += 1
        return f"%{hint}{self.count}"

    def emit(self, line):
        self.lines.append(self.indent + line)

    def scalar(self, value, dtype="f32", hyper=None):
        """A constant; `hyper` names a hyper-parameter (its own constant,
        marked {hwagent.hyper = ...}, which hwagent-run --lr sets)."""
        key = (value, dtype, hyper)
        if key not in self.scalars:
            name = self.fresh("c")
            if hyper:
                text = f'{name} = arith.constant {{hwagent.hyper = "{hyper}"}} {float(value)!r} : {dtype}'
            elif dtype == "index":
                text = f"{name} = arith.constant {int(value)} : index"
            elif value == float("-inf"):
                text = f"{name} = arith.constant 0xFF800000 : f32"
            else:
                text = f"{name} = arith.constant {float(value)!r} : {dtype}"
            self.consts.append("  " + text)
            self.scalars[key] = name
        return self.scalars[key]

    def typed(self, name, shape):
        self.shapes[name] = list(shape)
        return name

    def shape(self, name):
        return self.shapes[name]

    def empty(self, shape):
        name = self.fresh("e")
        self.emit(f"{name} = tensor.empty() : {shape_str(shape)}")
        return name

    def full(self, shape, value):
        c = self.scalar(value)
        e = self.empty(shape)
        name = self.fresh("z")
        self.emit(f"{name} = linalg.fill ins({c} : f32) outs({e} : {shape_str(shape)}) -> {shape_str(shape)}")
        return self.typed(name, shape)

    def generic(self, ins, out_shape, out_exprs, iterators, body, init=None, hint="g"):
        """ins: list of (value, exprs); body: function(args: list[str]) -> str
        (the yielded scalar), emitting scalar ops with self.op()."""
        n = len(iterators)
        maps = [amap(n, exprs) for _, exprs in ins] + [amap(n, out_exprs)]
        out = init if init is not None else self.empty(out_shape)
        name = self.fresh(hint)
        ins_list = ", ".join(v for v, _ in ins)
        ins_types = ", ".join(shape_str(self.shape(v)) for v, _ in ins)
        its = ", ".join(f'"{it}"' for it in iterators)
        self.emit(f"{name} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{its}]}}")
        self.emit(f"    ins({ins_list} : {ins_types}) outs({out} : {shape_str(out_shape)}) {{")
        args = [f"%a{i}" for i in range(len(ins))] + ["%acc"]
        self.emit("^bb0(" + ", ".join(f"{a}: f32" for a in args) + "):")
        saved = self.indent
        self.indent = "    "
        self._body_count = 0
        result = body(args)
        self.emit(f"linalg.yield {result} : f32")
        self.indent = saved
        self.emit(f"}} -> {shape_str(out_shape)}")
        return self.typed(name, out_shape)

    def op(self, text):
        """A scalar op inside a generic body; returns its SSA name."""
        self._body_count += 1
        name = f"%s{self._body_count}"
        self.emit(f"{name} = {text}")
        return name

    # --- elementwise helpers -------------------------------------------------
    def ew(self, fn, *values, hint="w"):
        shape = self.shape(values[0])
        n = len(shape)
        ident = [f"d{i}" for i in range(n)]
        return self.generic([(v, ident) for v in values], shape, ident,
                            ["parallel"] * n, lambda a: fn(a), hint=hint)

    def ew_bcast(self, fn, big, small, small_exprs, hint="b"):
        shape = self.shape(big)
        n = len(shape)
        ident = [f"d{i}" for i in range(n)]
        return self.generic([(big, ident), (small, small_exprs)], shape, ident,
                            ["parallel"] * n, lambda a: fn(a), hint=hint)

    def add(self, x, y):
        return self.ew(lambda a: self.op(f"arith.addf {a[0]}, {a[1]} : f32"), x, y)

    def sub(self, x, y):
        return self.ew(lambda a: self.op(f"arith.subf {a[0]}, {a[1]} : f32"), x, y)

    def mul(self, x, y):
        return self.ew(lambda a: self.op(f"arith.mulf {a[0]}, {a[1]} : f32"), x, y)

    def scale(self, x, factor):
        c = self.scalar(factor)
        return self.ew(lambda a: self.op(f"arith.mulf {a[0]}, {c} : f32"), x)

    def relu(self, x):
        zero = self.scalar(0.0)
        return self.ew(lambda a: self.op(f"arith.maximumf {a[0]}, {zero} : f32"), x, hint="relu")

    def relu_grad(self, z, g):
        zero = self.scalar(0.0)

        def body(a):
            pos = self.op(f"arith.cmpf ogt, {a[0]}, {zero} : f32")
            return self.op(f"arith.select {pos}, {a[1]}, {zero} : f32")
        return self.ew(body, z, g, hint="drelu")

    def sgd(self, p, g, lr):
        c = self.scalar(lr, hyper="lr")

        def body(a):
            u = self.op(f"arith.mulf {a[1]}, {c} : f32")
            return self.op(f"arith.subf {a[0]}, {u} : f32")
        return self.ew(body, p, g, hint="upd")

    # --- contractions ----------------------------------------------------------
    def matmul(self, a, b, ta=False, tb=False):
        """a @ b with optional transposes, as linalg.matmul or a generic
        contraction (the profiler sees both as matmul)."""
        sa, sb = self.shape(a), self.shape(b)
        m = sa[1] if ta else sa[0]
        k = sa[0] if ta else sa[1]
        n = sb[0] if tb else sb[1]
        acc = self.full([m, n], 0.0)
        if not ta and not tb:
            name = self.fresh("mm")
            self.emit(f"{name} = linalg.matmul ins({a}, {b} : {shape_str(sa)}, {shape_str(sb)}) "
                      f"outs({acc} : {shape_str([m, n])}) -> {shape_str([m, n])}")
            return self.typed(name, [m, n])
        amap_ = ["d2", "d0"] if ta else ["d0", "d2"]
        bmap_ = ["d1", "d2"] if tb else ["d2", "d1"]

        def body(x):
            p = self.op(f"arith.mulf {x[0]}, {x[1]} : f32")
            return self.op(f"arith.addf {x[2]}, {p} : f32")
        return self.generic([(a, amap_), (b, bmap_)], [m, n], ["d0", "d1"],
                            ["parallel", "parallel", "reduction"], body, init=acc, hint="mm")

    def bmm(self, a, b, ta=False, tb=False):
        """Batched (first dim) a @ b."""
        sa, sb = self.shape(a), self.shape(b)
        bt = sa[0]
        m = sa[2] if ta else sa[1]
        n = sb[1] if tb else sb[2]
        acc = self.full([bt, m, n], 0.0)
        if not ta and not tb:
            name = self.fresh("bmm")
            self.emit(f"{name} = linalg.batch_matmul ins({a}, {b} : {shape_str(sa)}, {shape_str(sb)}) "
                      f"outs({acc} : {shape_str([bt, m, n])}) -> {shape_str([bt, m, n])}")
            return self.typed(name, [bt, m, n])
        amap_ = ["d0", "d3", "d1"] if ta else ["d0", "d1", "d3"]
        bmap_ = ["d0", "d2", "d3"] if tb else ["d0", "d3", "d2"]

        def body(x):
            p = self.op(f"arith.mulf {x[0]}, {x[1]} : f32")
            return self.op(f"arith.addf {x[2]}, {p} : f32")
        return self.generic([(a, amap_), (b, bmap_)], [bt, m, n], ["d0", "d1", "d2"],
                            ["parallel", "parallel", "parallel", "reduction"], body, init=acc, hint="bmm")

    def reduce_rows(self, x, op="add", init=0.0, keep_last=False):
        """Reduces the last dimension of x."""
        shape = self.shape(x)
        n = len(shape)
        out_shape = shape[:-1]
        acc = self.full(out_shape, init)
        ident = [f"d{i}" for i in range(n)]
        arith = {"add": "arith.addf", "max": "arith.maximumf"}[op]
        return self.generic([(x, ident)], out_shape, ident[:-1],
                            ["parallel"] * (n - 1) + ["reduction"],
                            lambda a: self.op(f"{arith} {a[1]}, {a[0]} : f32"), init=acc, hint="red")

    def reduce_first(self, x):
        """Sums over the first dimension (bias gradients)."""
        shape = self.shape(x)
        n = len(shape)
        acc = self.full(shape[1:], 0.0)
        ident = [f"d{i}" for i in range(n)]
        # Iterate (d1.., d0) so that the reduction is innermost.
        perm = [f"d{n - 1}"] + [f"d{i}" for i in range(n - 1)]
        return self.generic([(x, perm)], shape[1:], ident[:-1],
                            ["parallel"] * (n - 1) + ["reduction"],
                            lambda a: self.op(f"arith.addf {a[1]}, {a[0]} : f32"), init=acc, hint="red")

    def sum_all(self, x):
        shape = self.shape(x)
        n = len(shape)
        acc = self.full([], 0.0)
        ident = [f"d{i}" for i in range(n)]
        return self.generic([(x, ident)], [], [], ["reduction"] * n,
                            lambda a: self.op(f"arith.addf {a[1]}, {a[0]} : f32"), init=acc, hint="sum")

    def pad(self, x, p):
        shape = self.shape(x)
        out = shape[:2] + [shape[2] + 2 * p, shape[3] + 2 * p]
        zero = self.scalar(0.0)
        name = self.fresh("pad")
        self.emit(f"{name} = tensor.pad {x} low[0, 0, {p}, {p}] high[0, 0, {p}, {p}] {{")
        self.emit("^bb0(%i0: index, %i1: index, %i2: index, %i3: index):")
        self.emit(f"  tensor.yield {zero} : f32")
        self.emit(f"}} : {shape_str(shape)} to {shape_str(out)}")
        return self.typed(name, out)

    def transpose(self, x, perm):
        shape = self.shape(x)
        out = [shape[p] for p in perm]
        e = self.empty(out)
        name = self.fresh("tr")
        self.emit(f"{name} = linalg.transpose ins({x} : {shape_str(shape)}) outs({e} : {shape_str(out)}) "
                  f"permutation = [{', '.join(str(p) for p in perm)}]")
        return self.typed(name, out)

    def expand(self, x, out_shape, reassoc):
        name = self.fresh("ex")
        groups = ", ".join("[" + ", ".join(str(i) for i in g) + "]" for g in reassoc)
        self.emit(f"{name} = tensor.expand_shape {x} [{groups}] output_shape "
                  f"[{', '.join(str(d) for d in out_shape)}] : {shape_str(self.shape(x))} into {shape_str(out_shape)}")
        return self.typed(name, out_shape)

    def collapse(self, x, out_shape, reassoc):
        name = self.fresh("co")
        groups = ", ".join("[" + ", ".join(str(i) for i in g) + "]" for g in reassoc)
        self.emit(f"{name} = tensor.collapse_shape {x} [{groups}] : "
                  f"{shape_str(self.shape(x))} into {shape_str(out_shape)}")
        return self.typed(name, out_shape)

    # --- convolutions (NCHW, stride 1) ---------------------------------------------
    def conv(self, x, w, pad):
        xp = self.pad(x, pad) if pad else x
        sx, sw = self.shape(xp), self.shape(w)
        out = [sx[0], sw[0], sx[2] - sw[2] + 1, sx[3] - sw[3] + 1]
        acc = self.full(out, 0.0)
        name = self.fresh("conv")
        self.emit(f"{name} = linalg.conv_2d_nchw_fchw ins({xp}, {w} : {shape_str(sx)}, {shape_str(sw)}) "
                  f"outs({acc} : {shape_str(out)}) -> {shape_str(out)}")
        return self.typed(name, out), xp

    def depthwise(self, x, w, pad):
        xp = self.pad(x, pad) if pad else x
        sx, sw = self.shape(xp), self.shape(w)
        out = [sx[0], sx[1], sx[2] - sw[1] + 1, sx[3] - sw[2] + 1]
        acc = self.full(out, 0.0)
        name = self.fresh("dw")
        self.emit(f"{name} = linalg.depthwise_conv_2d_nchw_chw ins({xp}, {w} : {shape_str(sx)}, {shape_str(sw)}) "
                  f"outs({acc} : {shape_str(out)}) -> {shape_str(out)}")
        return self.typed(name, out), xp

    def mac(self, x):
        p = self.op(f"arith.mulf {x[0]}, {x[1]} : f32")
        return self.op(f"arith.addf {x[2]}, {p} : f32")

    def conv_grad_filter(self, dz, xp, wshape):
        """dW[f,c,kh,kw] = sum_{n,h,w} dz[n,f,h,w] * xp[n,c,h+kh,w+kw]."""
        acc = self.full(wshape, 0.0)
        # dims: f c kh kw n h w
        return self.generic([(dz, ["d4", "d0", "d5", "d6"]), (xp, ["d4", "d1", "d5 + d2", "d6 + d3"])],
                            wshape, ["d0", "d1", "d2", "d3"],
                            ["parallel"] * 4 + ["reduction"] * 3, self.mac, init=acc, hint="dwgt")

    def conv_grad_input(self, dz, w, pad, xshape):
        """dx[n,c,h,w] = sum_{f,kh,kw} dzp[n,f,h+kh,w+kw] * w[f,c,K-1-kh,K-1-kw]
        (stride 1; pad = K - 1 - forward pad)."""
        k = self.shape(w)[2]
        dzp = self.pad(dz, k - 1 - pad) if k - 1 - pad else dz
        acc = self.full(xshape, 0.0)
        # The filter rotated by 180 degrees (a separate op: linalg needs
        # invertible indexing maps to infer loop bounds).
        flipped = self.generic([(w, ["d0", "d1", f"{k - 1} - d2", f"{k - 1} - d3"])], self.shape(w),
                               ["d0", "d1", "d2", "d3"], ["parallel"] * 4, lambda a: a[0], hint="flip")
        # dims: n c h w f kh kw
        return self.generic([(dzp, ["d0", "d4", "d2 + d5", "d3 + d6"]),
                             (flipped, ["d4", "d1", "d5", "d6"])],
                            xshape, ["d0", "d1", "d2", "d3"],
                            ["parallel"] * 4 + ["reduction"] * 3, self.mac, init=acc, hint="dx")

    def dw_grad_filter(self, dz, xp, wshape):
        acc = self.full(wshape, 0.0)
        # dims: c kh kw n h w
        return self.generic([(dz, ["d3", "d0", "d4", "d5"]), (xp, ["d3", "d0", "d4 + d1", "d5 + d2"])],
                            wshape, ["d0", "d1", "d2"],
                            ["parallel"] * 3 + ["reduction"] * 3, self.mac, init=acc, hint="ddw")

    def dw_grad_input(self, dz, w, pad, xshape):
        k = self.shape(w)[1]
        dzp = self.pad(dz, k - 1 - pad) if k - 1 - pad else dz
        acc = self.full(xshape, 0.0)
        flipped = self.generic([(w, ["d0", f"{k - 1} - d1", f"{k - 1} - d2"])], self.shape(w),
                               ["d0", "d1", "d2"], ["parallel"] * 3, lambda a: a[0], hint="flip")
        # dims: n c h w kh kw
        return self.generic([(dzp, ["d0", "d1", "d2 + d4", "d3 + d5"]),
                             (flipped, ["d1", "d4", "d5"])],
                            xshape, ["d0", "d1", "d2", "d3"],
                            ["parallel"] * 4 + ["reduction"] * 2, self.mac, init=acc, hint="dx")


ONE_HOT = {"%y_onehot"}


def function(name, args, results, em, header_comment, named=False, result_names=None, one_hot=ONE_HOT,
             params=()):
    """named: every argument carries its name ({hwagent.name}), which
    datasets and checkpoints bind to; result_names name the results."""
    body_lines = em.consts + em.lines

    def arg_attrs(a):
        attrs = []
        if named:
            attrs.append(f'hwagent.name = "{a[1:]}"')
        # hwagent-run fills inputs marked one_hot with one-hot rows (labels).
        if a in one_hot:
            attrs.append('hwagent.input = "one_hot"')
        # An evaluation function's parameters (a training step's are known
        # from the results that update them).
        if a in params:
            attrs.append('hwagent.role = "parameter"')
        return " {" + ", ".join(attrs) + "}" if attrs else ""
    sig = ", ".join(f"{a}: {shape_str(s)}" + arg_attrs(a) for a, s in args)
    res_types = ", ".join(shape_str(s) for _, s in results)
    if result_names:
        res_sig = ", ".join(f'{shape_str(s)} {{hwagent.name = "{n}"}}' for (_, s), n in zip(results, result_names))
    else:
        res_sig = res_types
    res_vals = ", ".join(v for v, _ in results)
    out = [header_comment, f"func.func @{name}({sig})", f"    -> ({res_sig}) {{"]
    out += body_lines
    out.append(f"  return {res_vals} : {res_types}")
    out.append("}")
    return "\n".join(out) + "\n"


def softmax_xent(em, z, y):
    """Mean softmax cross-entropy of logits z (B,K) against one-hot y;
    returns (loss, dz)."""
    bsz, k = em.shape(z)
    m = em.reduce_rows(z, "max", float("-inf"))
    e = em.ew_bcast(lambda a: em.op(f"math.exp {em.op(f'arith.subf {a[0]}, {a[1]} : f32')} : f32"),
                    z, m, ["d0"], hint="exp")
    s = em.reduce_rows(e)
    p = em.ew_bcast(lambda a: em.op(f"arith.divf {a[0]}, {a[1]} : f32"), e, s, ["d0"], hint="p")
    lse = em.generic([(m, ["d0"]), (s, ["d0"])], [bsz], ["d0"], ["parallel"],
                     lambda a: em.op(f"arith.addf {a[0]}, {em.op(f'math.log {a[1]} : f32')} : f32"), hint="lse")
    yz = em.reduce_rows(em.mul(y, z))
    per = em.sub(lse, yz)
    loss = em.generic([(em.sum_all(per), [])], [], [], [],
                      lambda a: em.op(f"arith.mulf {a[0]}, {em.scalar(1.0 / bsz)} : f32"), hint="loss")
    dz = em.scale(em.sub(p, y), 1.0 / bsz)
    return loss, dz


def mse(em, out, target):
    n = 1
    for d in em.shape(out):
        n *= d
    diff = em.sub(out, target)
    sq = em.sum_all(em.mul(diff, diff))
    loss = em.generic([(sq, [])], [], [], [],
                      lambda a: em.op(f"arith.mulf {a[0]}, {em.scalar(1.0 / n)} : f32"), hint="loss")
    return loss, em.scale(diff, 2.0 / n)


# ----------------------------------------------------------------------------------
def mlp(cfg):
    b, i, h, o = cfg["batch"], cfg["in"], cfg["hidden"], cfg["out"]
    em = Emitter()
    x, y = em.typed("%x", [b, i]), em.typed("%y", [b, o])
    w1, b1 = em.typed("%w1", [i, h]), em.typed("%b1", [h])
    w2, b2 = em.typed("%w2", [h, o]), em.typed("%b2", [o])
    z1 = em.ew_bcast(lambda a: em.op(f"arith.addf {a[0]}, {a[1]} : f32"), em.matmul(x, w1), b1, ["d1"])
    a1 = em.relu(z1)
    out = em.ew_bcast(lambda a: em.op(f"arith.addf {a[0]}, {a[1]} : f32"), em.matmul(a1, w2), b2, ["d1"])
    loss, dout = mse(em, out, y)
    dw2 = em.matmul(a1, dout, ta=True)
    db2 = em.reduce_first(dout)
    dz1 = em.relu_grad(z1, em.matmul(dout, w2, tb=True))
    dw1 = em.matmul(x, dz1, ta=True)
    db1 = em.reduce_first(dz1)
    lr = cfg["lr"]
    results = [(loss, [])] + [(em.sgd(p, g, lr), em.shape(p)) for p, g in
                              [(w1, dw1), (b1, db1), (w2, dw2), (b2, db2)]]
    args = [("%x", [b, i]), ("%y", [b, o]), ("%w1", [i, h]), ("%b1", [h]), ("%w2", [h, o]), ("%b2", [o])]
    return function("train_step", args, results, em,
                    f"// Tiny MLP {i} -> {h} -> {o}, batch {b}: MSE loss, SGD (lr {lr}).")


def cnn(cfg):
    """MobileNet-style: conv3x3 stem, depthwise 3x3 + pointwise 1x1, a 3x3
    conv, global average pooling, a linear classifier and softmax
    cross-entropy."""
    b, c0, hw = cfg["batch"], cfg["channels"], cfg["size"]
    c1, c2, k = cfg["stem"], cfg["width"], cfg["classes"]
    em = Emitter()
    x, y = em.typed("%x", [b, c0, hw, hw]), em.typed("%y_onehot", [b, k])
    w1 = em.typed("%w_stem", [c1, c0, 3, 3])
    wd = em.typed("%w_dw", [c1, 3, 3])
    wp = em.typed("%w_pw", [c2, c1, 1, 1])
    w4 = em.typed("%w_conv", [c2, c2, 3, 3])
    wf, bf = em.typed("%w_fc", [c2, k]), em.typed("%b_fc", [k])
    # forward
    z1, xp = em.conv(x, w1, 1)
    a1 = em.relu(z1)
    z2, a1p = em.depthwise(a1, wd, 1)
    a2 = em.relu(z2)
    z3, _ = em.conv(a2, wp, 0)
    a3 = em.relu(z3)
    z4, a3p = em.conv(a3, w4, 1)
    a4 = em.relu(z4)
    acc = em.full([b, c2], 0.0)
    g = em.generic([(a4, ["d0", "d1", "d2", "d3"])], [b, c2], ["d0", "d1"],
                   ["parallel", "parallel", "reduction", "reduction"],
                   lambda a: em.op(f"arith.addf {a[1]}, {a[0]} : f32"), init=acc, hint="gap")
    g = em.scale(g, 1.0 / (hw * hw))
    logits = em.ew_bcast(lambda a: em.op(f"arith.addf {a[0]}, {a[1]} : f32"), em.matmul(g, wf), bf, ["d1"])
    loss, dlogits = softmax_xent(em, logits, y)
    # backward
    dwf = em.matmul(g, dlogits, ta=True)
    dbf = em.reduce_first(dlogits)
    dg = em.matmul(dlogits, wf, tb=True)
    inv = em.scalar(1.0 / (hw * hw))
    da4 = em.generic([(dg, ["d0", "d1"])], [b, c2, hw, hw], ["d0", "d1", "d2", "d3"],
                     ["parallel"] * 4, lambda a: em.op(f"arith.mulf {a[0]}, {inv} : f32"), hint="dgap")
    dz4 = em.relu_grad(z4, da4)
    dw4 = em.conv_grad_filter(dz4, a3p, [c2, c2, 3, 3])
    dz3 = em.relu_grad(z3, em.conv_grad_input(dz4, w4, 1, [b, c2, hw, hw]))
    dwp = em.conv_grad_filter(dz3, a2, [c2, c1, 1, 1])
    dz2 = em.relu_grad(z2, em.conv_grad_input(dz3, wp, 0, [b, c1, hw, hw]))
    dwd = em.dw_grad_filter(dz2, a1p, [c1, 3, 3])
    dz1 = em.relu_grad(z1, em.dw_grad_input(dz2, wd, 1, [b, c1, hw, hw]))
    dw1 = em.conv_grad_filter(dz1, xp, [c1, c0, 3, 3])
    lr = cfg["lr"]
    params = [(w1, dw1), (wd, dwd), (wp, dwp), (w4, dw4), (wf, dwf), (bf, dbf)]
    results = [(loss, [])] + [(em.sgd(p, gr, lr), em.shape(p)) for p, gr in params]
    args = [("%x", [b, c0, hw, hw]), ("%y_onehot", [b, k])] + [(p, em.shape(p)) for p, _ in params]
    return function("train_step", args, results, em,
                    f"// MobileNet-style CNN, batch {b}, {c0}x{hw}x{hw} input: conv3x3 {c0}->{c1}, depthwise 3x3,\n"
                    f"// pointwise {c1}->{c2}, conv3x3 {c2}->{c2}, global average pool, linear {c2}->{k},\n"
                    f"// softmax cross-entropy, SGD (lr {lr}).")


def transformer(cfg):
    """One LLaMA-style layer (multi-head attention without mask or norm, and a
    SwiGLU FFN, both residual) trained to a target with MSE."""
    s, d, h, f = cfg["seq"], cfg["dim"], cfg["heads"], cfg["ffn"]
    hd = d // h
    em = Emitter()
    x, tgt = em.typed("%x", [s, d]), em.typed("%target", [s, d])
    wq, wk, wv, wo = (em.typed(n, [d, d]) for n in ("%wq", "%wk", "%wv", "%wo"))
    wg, wu = em.typed("%w_gate", [d, f]), em.typed("%w_up", [d, f])
    wdn = em.typed("%w_down", [f, d])

    def heads(t):  # (S, D) -> (H, S, hd)
        return em.transpose(em.expand(t, [s, h, hd], [[0], [1, 2]]), [1, 0, 2])

    def merge(t):  # (H, S, hd) -> (S, D)
        return em.collapse(em.transpose(t, [1, 0, 2]), [s, d], [[0], [1, 2]])

    q, k, v = em.matmul(x, wq), em.matmul(x, wk), em.matmul(x, wv)
    q3, k3, v3 = heads(q), heads(k), heads(v)
    scores = em.scale(em.bmm(q3, k3, tb=True), 1.0 / (hd ** 0.5))
    m = em.reduce_rows(scores, "max", float("-inf"))
    e = em.ew_bcast(lambda a: em.op(f"math.exp {em.op(f'arith.subf {a[0]}, {a[1]} : f32')} : f32"),
                    scores, m, ["d0", "d1"], hint="exp")
    den = em.reduce_rows(e)
    p = em.ew_bcast(lambda a: em.op(f"arith.divf {a[0]}, {a[1]} : f32"), e, den, ["d0", "d1"], hint="p")
    o = merge(em.bmm(p, v3))
    h1 = em.add(x, em.matmul(o, wo))
    gt, up = em.matmul(h1, wg), em.matmul(h1, wu)
    one = em.scalar(1.0)

    def sigmoid(a):
        ex = em.op(f"math.exp {em.op(f'arith.negf {a} : f32')} : f32")
        return em.op(f"arith.divf {one}, {em.op(f'arith.addf {one}, {ex} : f32')} : f32")
    act = em.ew(lambda a: em.op(f"arith.mulf {em.op(f'arith.mulf {a[0]}, {sigmoid(a[0])} : f32')}, {a[1]} : f32"),
                gt, up, hint="swiglu")
    out = em.add(h1, em.matmul(act, wdn))
    loss, dout = mse(em, out, tgt)
    # FFN backward
    dwdn = em.matmul(act, dout, ta=True)
    dact = em.matmul(dout, wdn, tb=True)

    def dgate(a):  # a: gate, up, dact
        sg = sigmoid(a[0])
        t = em.op(f"arith.subf {one}, {sg} : f32")
        t = em.op(f"arith.mulf {a[0]}, {t} : f32")
        t = em.op(f"arith.addf {one}, {t} : f32")
        ds = em.op(f"arith.mulf {sg}, {t} : f32")
        return em.op(f"arith.mulf {em.op(f'arith.mulf {a[2]}, {a[1]} : f32')}, {ds} : f32")
    dgt = em.ew(dgate, gt, up, dact, hint="dgate")
    dup = em.ew(lambda a: em.op(f"arith.mulf {a[1]}, {em.op(f'arith.mulf {a[0]}, {sigmoid(a[0])} : f32')} : f32"),
                gt, dact, hint="dup")
    dwg, dwu = em.matmul(h1, dgt, ta=True), em.matmul(h1, dup, ta=True)
    dh1 = em.add(dout, em.add(em.matmul(dgt, wg, tb=True), em.matmul(dup, wu, tb=True)))
    # attention backward
    dwo = em.matmul(o, dh1, ta=True)
    do3 = heads(em.matmul(dh1, wo, tb=True))
    dp = em.bmm(do3, v3, tb=True)
    dv3 = em.bmm(p, do3, ta=True)
    rs = em.reduce_rows(em.mul(dp, p))
    c = em.scalar(1.0 / (hd ** 0.5))

    def dsoft(a):  # a: p, dp, rowsum
        t = em.op(f"arith.subf {a[1]}, {a[2]} : f32")
        return em.op(f"arith.mulf {em.op(f'arith.mulf {a[0]}, {t} : f32')}, {c} : f32")
    n3 = ["d0", "d1", "d2"]
    dsc = em.generic([(p, n3), (dp, n3), (rs, ["d0", "d1"])], [h, s, s], n3, ["parallel"] * 3, dsoft, hint="dsc")
    dq, dk, dv = merge(em.bmm(dsc, k3)), merge(em.bmm(dsc, q3, ta=True)), merge(dv3)
    dwq, dwk, dwv = em.matmul(x, dq, ta=True), em.matmul(x, dk, ta=True), em.matmul(x, dv, ta=True)
    lr = cfg["lr"]
    params = [(wq, dwq), (wk, dwk), (wv, dwv), (wo, dwo), (wg, dwg), (wu, dwu), (wdn, dwdn)]
    results = [(loss, [])] + [(em.sgd(pp, gr, lr), em.shape(pp)) for pp, gr in params]
    args = [("%x", [s, d]), ("%target", [s, d])] + [(pp, em.shape(pp)) for pp, _ in params]
    return function("train_step", args, results, em,
                    f"// One LLaMA-style transformer layer: sequence {s}, d_model {d}, {h} heads, SwiGLU FFN {f};\n"
                    f"// attention without mask or normalization, residuals, MSE to a target, SGD (lr {lr}).")


def lstm(cfg):
    """An LSTM over T steps (the recurrence is an scf.for) with backpropagation
    through time in a second, reversed scf.for; MSE on the last hidden state."""
    t_steps, b, i, hd = cfg["steps"], cfg["batch"], cfg["in"], cfg["hidden"]
    g4 = 4 * hd
    em = Emitter()
    x, y = em.typed("%x", [t_steps, b, i]), em.typed("%y", [b, hd])
    wx, wh, bias = em.typed("%wx", [i, g4]), em.typed("%wh", [hd, g4]), em.typed("%b", [g4])
    c0i, c1i = em.scalar(0, "index"), em.scalar(1, "index")
    cti = em.scalar(t_steps, "index")
    one = em.scalar(1.0)
    hs0 = em.full([t_steps + 1, b, hd], 0.0)
    cs0 = em.full([t_steps + 1, b, hd], 0.0)
    gs0 = em.full([t_steps, b, g4], 0.0)
    T = shape_str

    def sig(a):
        ex = em.op(f"math.exp {em.op(f'arith.negf {a} : f32')} : f32")
        return em.op(f"arith.divf {one}, {em.op(f'arith.addf {one}, {ex} : f32')} : f32")

    def slice3(src, idx, inner):  # src[idx] : (B, inner) from (N, B, inner)
        name = em.fresh("sl")
        em.emit(f"{name} = tensor.extract_slice {src}[{idx}, 0, 0] [1, {b}, {inner}] [1, 1, 1] : "
                f"{T(em.shape(src))} to {T([b, inner])}")
        return em.typed(name, [b, inner])

    def insert3(val, dst, idx, inner):
        name = em.fresh("ins")
        em.emit(f"{name} = tensor.insert_slice {val} into {dst}[{idx}, 0, 0] [1, {b}, {inner}] [1, 1, 1] : "
                f"{T([b, inner])} into {T(em.shape(dst))}")
        return em.typed(name, em.shape(dst))

    def gate(src, k):  # columns k*H..(k+1)*H of (B, 4H)
        name = em.fresh("gate")
        em.emit(f"{name} = tensor.extract_slice {src}[0, {k * hd}] [{b}, {hd}] [1, 1] : {T([b, g4])} to {T([b, hd])}")
        return em.typed(name, [b, hd])

    # forward recurrence
    hsn, csn, gsn = em.fresh("hs"), em.fresh("cs"), em.fresh("gs")
    res = em.fresh("fwd")
    em.emit(f"{res}:3 = scf.for %t = {c0i} to {cti} step {c1i} iter_args({hsn} = {hs0}, {csn} = {cs0}, {gsn} = {gs0})"
            f" -> ({T([t_steps + 1, b, hd])}, {T([t_steps + 1, b, hd])}, {T([t_steps, b, g4])}) {{")
    em.indent = "    "
    for n_, s_ in ((hsn, [t_steps + 1, b, hd]), (csn, [t_steps + 1, b, hd]), (gsn, [t_steps, b, g4])):
        em.typed(n_, s_)
    xt = slice3(x, "%t", i)
    hprev, cprev = slice3(hsn, "%t", hd), slice3(csn, "%t", hd)
    pre = em.ew_bcast(lambda a: em.op(f"arith.addf {a[0]}, {a[1]} : f32"),
                      em.add(em.matmul(xt, wx), em.matmul(hprev, wh)), bias, ["d1"])
    cols = em.generic([(pre, ["d0", "d1"])], [b, g4], ["d0", "d1"], ["parallel", "parallel"],
                      lambda a: a[0], hint="copy")
    # activations: sigmoid for i, f, o (blocks 0, 1, 3); tanh for g (block 2)
    act = em.ew(lambda a: sig(a[0]), cols, hint="sig")
    ii, ff, oo = gate(act, 0), gate(act, 1), gate(act, 3)
    gg = em.ew(lambda a: em.op(f"math.tanh {a[0]} : f32"), gate(cols, 2), hint="tanh")
    acts = em.fresh("acts")
    em.emit(f"{acts} = tensor.insert_slice {gg} into {act}[0, {2 * hd}] [{b}, {hd}] [1, 1] : {T([b, hd])} into {T([b, g4])}")
    em.typed(acts, [b, g4])
    cnew = em.add(em.mul(ff, cprev), em.mul(ii, gg))
    hnew = em.mul(oo, em.ew(lambda a: em.op(f"math.tanh {a[0]} : f32"), cnew, hint="tanh"))
    tp1 = em.fresh("tp1")
    em.emit(f"{tp1} = arith.addi %t, {c1i} : index")
    hs2, cs2 = insert3(hnew, hsn, tp1, hd), insert3(cnew, csn, tp1, hd)
    gs2 = insert3(acts, gsn, "%t", g4)
    em.emit(f"scf.yield {hs2}, {cs2}, {gs2} : {T([t_steps + 1, b, hd])}, {T([t_steps + 1, b, hd])}, {T([t_steps, b, g4])}")
    em.indent = "  "
    em.emit("}")
    hs, cs, gs = (em.typed(f"{res}#{k}", s_) for k, s_ in
                  enumerate([[t_steps + 1, b, hd], [t_steps + 1, b, hd], [t_steps, b, g4]]))
    hlast = slice3(hs, t_steps, hd)
    loss, dh_last = mse(em, hlast, y)
    # backward through time
    dwx0, dwh0, db0 = em.full([i, g4], 0.0), em.full([hd, g4], 0.0), em.full([g4], 0.0)
    dc0 = em.full([b, hd], 0.0)
    names = [em.fresh(n) for n in ("dh", "dc", "dwx", "dwh", "db")]
    shapes = [[b, hd], [b, hd], [i, g4], [hd, g4], [g4]]
    bwd = em.fresh("bwd")
    em.emit(f"{bwd}:5 = scf.for %k = {c0i} to {cti} step {c1i} iter_args("
            + ", ".join(f"{n} = {v}" for n, v in zip(names, [dh_last, dc0, dwx0, dwh0, db0]))
            + ") -> (" + ", ".join(T(s_) for s_ in shapes) + ") {")
    em.indent = "    "
    for n_, s_ in zip(names, shapes):
        em.typed(n_, s_)
    dh, dc, dwx, dwh, dbb = names
    tm = em.fresh("tm")
    last = em.scalar(t_steps - 1, "index")
    em.emit(f"{tm} = arith.subi {last}, %k : index")
    tp = em.fresh("tp")
    em.emit(f"{tp} = arith.addi {tm}, {c1i} : index")
    xt = slice3(x, tm, i)
    hprev, cprev, ct = slice3(hs, tm, hd), slice3(cs, tm, hd), slice3(cs, tp, hd)
    acts = slice3(gs, tm, g4)
    ii, ff, gg, oo = (gate(acts, kk) for kk in range(4))
    tc = em.ew(lambda a: em.op(f"math.tanh {a[0]} : f32"), ct, hint="tanh")

    def dct(a):  # a: dc, dh, o, tanh(c)
        t2 = em.op(f"arith.mulf {a[3]}, {a[3]} : f32")
        d = em.op(f"arith.mulf {em.op(f'arith.mulf {a[1]}, {a[2]} : f32')}, {em.op(f'arith.subf {one}, {t2} : f32')} : f32")
        return em.op(f"arith.addf {a[0]}, {d} : f32")
    dctot = em.ew(dct, dc, dh, oo, tc, hint="dct")

    def sgrad(a):  # a: gradient wrt activation s, s -> pre-activation gradient
        return em.op(f"arith.mulf {em.op(f'arith.mulf {a[0]}, {a[1]} : f32')}, {em.op(f'arith.subf {one}, {a[1]} : f32')} : f32")
    di = em.ew(sgrad, em.mul(dctot, gg), ii, hint="di")
    df = em.ew(sgrad, em.mul(dctot, cprev), ff, hint="df")
    do = em.ew(sgrad, em.mul(dh, tc), oo, hint="do")
    def tanh_grad(a):  # a: gradient wrt tanh output, tanh output
        sq = em.op(f"arith.mulf {a[1]}, {a[1]} : f32")
        return em.op(f"arith.mulf {a[0]}, {em.op(f'arith.subf {one}, {sq} : f32')} : f32")
    dgg = em.ew(tanh_grad, em.mul(dctot, ii), gg, hint="dg")
    dgates = em.full([b, g4], 0.0)
    for kk, part in enumerate([di, df, dgg, do]):
        name = em.fresh("dgs")
        em.emit(f"{name} = tensor.insert_slice {part} into {dgates}[0, {kk * hd}] [{b}, {hd}] [1, 1] : {T([b, hd])} into {T([b, g4])}")
        dgates = em.typed(name, [b, g4])
    ndwx = em.add(dwx, em.matmul(xt, dgates, ta=True))
    ndwh = em.add(dwh, em.matmul(hprev, dgates, ta=True))
    ndb = em.add(dbb, em.reduce_first(dgates))
    ndh = em.matmul(dgates, wh, tb=True)
    ndc = em.mul(dctot, ff)
    em.emit(f"scf.yield {ndh}, {ndc}, {ndwx}, {ndwh}, {ndb} : " + ", ".join(T(s_) for s_ in shapes))
    em.indent = "  "
    em.emit("}")
    gwx, gwh, gb = em.typed(f"{bwd}#2", [i, g4]), em.typed(f"{bwd}#3", [hd, g4]), em.typed(f"{bwd}#4", [g4])
    lr = cfg["lr"]
    params = [(wx, gwx), (wh, gwh), (bias, gb)]
    results = [(loss, [])] + [(em.sgd(pp, gr, lr), em.shape(pp)) for pp, gr in params]
    args = [("%x", [t_steps, b, i]), ("%y", [b, hd])] + [(pp, em.shape(pp)) for pp, _ in params]
    return function("train_step", args, results, em,
                    f"// LSTM over {t_steps} steps (batch {b}, input {i}, hidden {hd}); the recurrence and\n"
                    f"// backpropagation through time are scf.for loops. MSE on the last hidden state, SGD (lr {lr}).")


def correct_count(em, z, y):
    """Rows of logits z whose target class (one-hot y) has the largest
    logit, as an f32 scalar."""
    m = em.reduce_rows(z, "max", float("-inf"))
    yz = em.reduce_rows(em.mul(y, z))
    one, zero = em.scalar(1.0), em.scalar(0.0)

    def hit(a):
        ok = em.op(f"arith.cmpf oge, {a[0]}, {a[1]} : f32")
        return em.op(f"arith.select {ok}, {one}, {zero} : f32")
    hits = em.generic([(yz, ["d0"]), (m, ["d0"])], em.shape(yz), ["d0"], ["parallel"], hit, hint="hit")
    return em.sum_all(hits)


def classifier_eval(forward):
    """`@eval_step` of a classifier whose `forward(em)` returns
    ((x, y, params), (..., logits)): the mean loss and the correct
    predictions of a batch, its parameters marked as such."""
    ev = Emitter()
    (x, y, params), intermediates = forward(ev)
    logits = intermediates[-1]
    loss, _ = softmax_xent(ev, logits, y)
    correct = correct_count(ev, logits, y)
    return function("eval_step", [(v, ev.shape(v)) for v in [x, y] + params],
                    [(loss, []), (correct, [])], ev,
                    "// Evaluation: mean loss and correct predictions of a batch.",
                    named=True, result_names=["loss", "correct"], one_hot={"%y"}, params=set(params))


def digits_mlp_forward(em, cfg):
    b, i, h, k = cfg["batch"], 64, cfg["hidden"], 10
    x, y = em.typed("%x", [b, i]), em.typed("%y", [b, k])
    w1, b1 = em.typed("%w1", [i, h]), em.typed("%b1", [h])
    w2, b2 = em.typed("%w2", [h, k]), em.typed("%b2", [k])
    z1 = em.ew_bcast(lambda a: em.op(f"arith.addf {a[0]}, {a[1]} : f32"), em.matmul(x, w1), b1, ["d1"])
    a1 = em.relu(z1)
    z2 = em.ew_bcast(lambda a: em.op(f"arith.addf {a[0]}, {a[1]} : f32"), em.matmul(a1, w2), b2, ["d1"])
    return (x, y, [w1, b1, w2, b2]), (z1, a1, z2)


def digits_mlp(cfg):
    """scikit-learn's digits (8x8 images as 64 values, 10 classes): an MLP
    64 -> hidden -> 10 with softmax cross-entropy and plain SGD, and its
    evaluation function (loss and correct count of a batch)."""
    b, h, lr = cfg["batch"], cfg["hidden"], cfg["lr"]
    em = Emitter()
    (x, y, params), (z1, a1, z2) = digits_mlp_forward(em, cfg)
    w1, b1, w2, b2 = params
    loss, dz2 = softmax_xent(em, z2, y)
    dw2, db2 = em.matmul(a1, dz2, ta=True), em.reduce_first(dz2)
    dz1 = em.relu_grad(z1, em.matmul(dz2, w2, tb=True))
    dw1, db1 = em.matmul(x, dz1, ta=True), em.reduce_first(dz1)
    results = [(loss, [])] + [(em.sgd(p, g, lr), em.shape(p)) for p, g in
                              [(w1, dw1), (b1, db1), (w2, dw2), (b2, db2)]]
    args = [(v, em.shape(v)) for v in [x, y] + params]
    train = function("train_step", args, results, em,
                     f"// Digits MLP 64 -> {h} -> 10, batch {b}: softmax cross-entropy, SGD (lr {lr}).",
                     named=True, one_hot={"%y"})
    return train + "\n" + classifier_eval(lambda ev: digits_mlp_forward(ev, cfg))


def digits_cnn_forward(em, cfg):
    b, c1, c2, k = cfg["batch"], cfg["c1"], cfg["c2"], 10
    x, y = em.typed("%x", [b, 1, 8, 8]), em.typed("%y", [b, k])
    w1, w2 = em.typed("%w1", [c1, 1, 3, 3]), em.typed("%w2", [c2, c1, 3, 3])
    wf, bf = em.typed("%wf", [c2 * 64, k]), em.typed("%bf", [k])
    z1, xp = em.conv(x, w1, 1)
    a1 = em.relu(z1)
    z2, a1p = em.conv(a1, w2, 1)
    a2 = em.relu(z2)
    flat = em.collapse(a2, [b, c2 * 64], [[0], [1, 2, 3]])
    z3 = em.ew_bcast(lambda a: em.op(f"arith.addf {a[0]}, {a[1]} : f32"), em.matmul(flat, wf), bf, ["d1"])
    return (x, y, [w1, w2, wf, bf]), (xp, z1, a1p, z2, flat, z3)


def digits_cnn(cfg):
    """scikit-learn's digits as 1x8x8 images: conv3x3 1->c1, relu,
    conv3x3 c1->c2, relu, flatten, linear to 10 classes; softmax
    cross-entropy, plain SGD; and its evaluation function."""
    b, c1, c2, lr = cfg["batch"], cfg["c1"], cfg["c2"], cfg["lr"]
    em = Emitter()
    (x, y, params), (xp, z1, a1p, z2, flat, z3) = digits_cnn_forward(em, cfg)
    w1, w2, wf, bf = params
    loss, dz3 = softmax_xent(em, z3, y)
    dwf, dbf = em.matmul(flat, dz3, ta=True), em.reduce_first(dz3)
    dflat = em.matmul(dz3, wf, tb=True)
    da2 = em.expand(dflat, [b, c2, 8, 8], [[0], [1, 2, 3]])
    dz2 = em.relu_grad(z2, da2)
    dw2 = em.conv_grad_filter(dz2, a1p, [c2, c1, 3, 3])
    dz1 = em.relu_grad(z1, em.conv_grad_input(dz2, w2, 1, [b, c1, 8, 8]))
    dw1 = em.conv_grad_filter(dz1, xp, [c1, 1, 3, 3])
    results = [(loss, [])] + [(em.sgd(p, g, lr), em.shape(p)) for p, g in
                              [(w1, dw1), (w2, dw2), (wf, dwf), (bf, dbf)]]
    args = [(v, em.shape(v)) for v in [x, y] + params]
    train = function("train_step", args, results, em,
                     f"// Digits CNN, batch {b}, 1x8x8 input: conv3x3 1->{c1}, relu, conv3x3 {c1}->{c2}, relu,\n"
                     f"// flatten, linear {c2 * 64}->10; softmax cross-entropy, SGD (lr {lr}).",
                     named=True, one_hot={"%y"})
    return train + "\n" + classifier_eval(lambda ev: digits_cnn_forward(ev, cfg))


WORKLOADS = {
    "mlp": (mlp, dict(batch=8, **{"in": 16}, hidden=32, out=4, lr=0.01),
            dict(batch=4, **{"in": 8}, hidden=8, out=4, lr=0.05)),
    "cnn": (cnn, dict(batch=32, channels=3, size=32, stem=32, width=256, classes=10, lr=0.05),
            dict(batch=4, channels=3, size=8, stem=8, width=16, classes=4, lr=0.1)),
    "transformer": (transformer, dict(seq=2048, dim=4096, heads=32, ffn=11008, lr=1e-4),
                    dict(seq=8, dim=16, heads=2, ffn=24, lr=0.01)),
    "digits_mlp": (digits_mlp, dict(batch=32, hidden=64, lr=0.2), dict(batch=32, hidden=64, lr=0.2)),
    "digits_cnn": (digits_cnn, dict(batch=32, c1=8, c2=16, lr=0.05), dict(batch=32, c1=8, c2=16, lr=0.05)),
    "lstm": (lstm, dict(steps=16, batch=4, **{"in": 8}, hidden=16, lr=0.05),
             dict(steps=4, batch=2, **{"in": 4}, hidden=4, lr=0.1)),
}


def write_llm(args, steps):
    """LLM inference steps (scripts/llm_workloads.py): each config's file."""
    for step in steps:
        cfg = llm_workloads.config(**step)
        path = os.path.join(args.out, llm_workloads.file_name(cfg))
        with open(path, "w") as f:
            f.write("// Generated by scripts/gen_workloads.py; do not edit.\n"
                    + llm_workloads.step_text(cfg))
        print(path)


def llm_options(parser):
    g = parser.add_argument_group("LLM inference steps (docs/workloads.md)")
    g.add_argument("--llm", choices=sorted(llm_workloads.MODELS),
                   help="write one decode or prefill step of this model only")
    g.add_argument("--phase", choices=["decode", "prefill"], default="decode")
    g.add_argument("--layers", type=int, default=2, help="decoder layers (0: all of the model's)")
    g.add_argument("--batch", type=int, default=1)
    g.add_argument("--context", type=int, default=512, help="KV cache length, new tokens included")
    g.add_argument("--prompt", type=int, default=128, help="prompt tokens of a prefill step")
    g.add_argument("--weights", choices=["fp16", "int8"], default="fp16")
    g.add_argument("--head", action="store_true", help="final RMSNorm and LM head (logits)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "examples"))
    parser.add_argument("--small", action="store_true", help="tiny shapes (tests)")
    parser.add_argument("--only", choices=sorted(WORKLOADS) + ["llm"], action="append")
    llm_options(parser)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.llm:
        step = dict(model=args.llm, phase=args.phase, layers=args.layers or None,
                    batch=args.batch, context=args.context, prompt=args.prompt,
                    weights=args.weights, head=args.head)
        try:
            llm_workloads.config(**step)
        except ValueError as e:
            parser.error(str(e))
        write_llm(args, [step])
        return 0
    if not args.only or "llm" in args.only:
        write_llm(args, llm_workloads.SMALL if args.small else llm_workloads.BUNDLED)
    for name in [n for n in args.only or sorted(WORKLOADS) if n != "llm"]:
        build, full, small = WORKLOADS[name]
        text = ("// Generated by scripts/gen_workloads.py" + (" --small" if args.small else "")
                + "; do not edit.\n" + build(small if args.small else full))
        suffix = "_small" if args.small else ""
        path = os.path.join(args.out, f"{name}{suffix}_train_step.mlir")
        with open(path, "w") as f:
            f.write(text)
        print(path)


if __name__ == "__main__":
    sys.exit(main())
