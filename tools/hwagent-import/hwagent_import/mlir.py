"""A small writer of MLIR text: linalg-on-tensors, tensor, arith and math.

The importer emits textual MLIR (the C++ tools parse it); this module owns the
syntax. Values are SSA names with a static shape and an element type; a
``FunctionWriter`` collects one function's ops, a ``Body`` one linalg region.
Every op the importer emits goes through here, so the spelling of MLIR 22's
ops lives in one place.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
INT_TYPES = ("i1", "i8", "i16", "i32", "i64")


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_TYPES


def bit_width(dtype: str) -> int:
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "i1": 1, "i8": 8,
            "i16": 16, "i32": 32, "i64": 64}[dtype]


def tensor_type(shape: Sequence[int], dtype: str) -> str:
    if not shape:
        return f"tensor<{dtype}>"
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{dtype}>"


def float_literal(value: float, dtype: str) -> str:
    """A literal MLIR parses to exactly ``value`` rounded to ``dtype``.

    Hexadecimal bit patterns keep infinities, NaN and every rounding exact.
    """
    if dtype == "f64":
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", float(value)))[0]
    if dtype == "f32":
        return "0x%08X" % struct.unpack("<I", struct.pack("<f", float(value)))[0]
    if dtype == "f16":
        return "0x%04X" % struct.unpack("<H", struct.pack("<e", float(value)))[0]
    if dtype == "bf16":
        bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
        # Round to nearest even, as torch does when it converts to bfloat16.
        if math.isnan(value):
            return "0x7FC0"
        bits += 0x7FFF + ((bits >> 16) & 1)
        return "0x%04X" % ((bits >> 16) & 0xFFFF)
    raise ValueError(f"not a float type: {dtype}")


def int_literal(value: int, dtype: str) -> str:
    if dtype == "i1":
        return "true" if value else "false"
    bits = bit_width(dtype)
    value = int(value) & ((1 << bits) - 1)
    if value >= 1 << (bits - 1):
        value -= 1 << bits
    return str(value)


def scalar_literal(value, dtype: str) -> str:
    if is_float(dtype):
        return float_literal(float(value), dtype)
    return int_literal(int(value), dtype)


@dataclass(frozen=True)
class Value:
    """An SSA value of ranked tensor type with a static shape."""

    name: str
    shape: tuple[int, ...]
    dtype: str

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.dtype)

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return math.prod(self.shape)


def affine_map(num_dims: int, exprs: Iterable[str]) -> str:
    dims = ", ".join(f"d{i}" for i in range(num_dims))
    return f"affine_map<({dims}) -> ({', '.join(exprs)})>"


def identity_exprs(rank: int) -> list[str]:
    return [f"d{i}" for i in range(rank)]


class Body:
    """Scalar code inside a linalg region: arith/math ops on block arguments."""

    def __init__(self, writer: "FunctionWriter"):
        self.writer = writer
        self.lines: list[str] = []

    def _fresh(self) -> str:
        return self.writer.fresh("s")

    def emit(self, text: str) -> str:
        name = self._fresh()
        self.lines.append(f"{name} = {text}")
        return name

    def const(self, value, dtype: str) -> str:
        return self.writer.scalar(value, dtype)

    def index(self, dim: int) -> str:
        return self.emit(f"linalg.index {dim} : index")

    def index_cast(self, value: str, dtype: str) -> str:
        return self.emit(f"arith.index_cast {value} : index to {dtype}")

    def to_index(self, value: str, dtype: str) -> str:
        return self.emit(f"arith.index_cast {value} : {dtype} to index")

    # Arithmetic; `dtype` is the operands' type.
    def binary(self, fop: str, iop: str, x: str, y: str, dtype: str) -> str:
        op = fop if is_float(dtype) else iop
        return self.emit(f"arith.{op} {x}, {y} : {dtype}")

    def add(self, x, y, dtype):
        return self.binary("addf", "addi", x, y, dtype)

    def sub(self, x, y, dtype):
        return self.binary("subf", "subi", x, y, dtype)

    def mul(self, x, y, dtype):
        if dtype == "i1":
            return self.emit(f"arith.andi {x}, {y} : i1")
        return self.binary("mulf", "muli", x, y, dtype)

    def div(self, x, y, dtype):
        return self.binary("divf", "divsi", x, y, dtype)

    def rem(self, x, y, dtype):
        return self.binary("remf", "remsi", x, y, dtype)

    def fma(self, a, b, c, dtype):
        """a * b + c with one rounding (what PyTorch's vectorized kernels do)."""
        if is_float(dtype):
            return self.emit(f"math.fma {a}, {b}, {c} : {dtype}")
        return self.add(self.mul(a, b, dtype), c, dtype)

    def neg(self, x, dtype):
        if is_float(dtype):
            return self.emit(f"arith.negf {x} : {dtype}")
        return self.sub(self.const(0, dtype), x, dtype)

    def maximum(self, x, y, dtype):
        """NaN-propagating maximum, as torch.maximum and clamp propagate NaN."""
        if is_float(dtype):
            return self.emit(f"arith.maximumf {x}, {y} : {dtype}")
        if dtype == "i1":
            return self.emit(f"arith.ori {x}, {y} : i1")
        return self.emit(f"arith.maxsi {x}, {y} : {dtype}")

    def minimum(self, x, y, dtype):
        if is_float(dtype):
            return self.emit(f"arith.minimumf {x}, {y} : {dtype}")
        if dtype == "i1":
            return self.emit(f"arith.andi {x}, {y} : i1")
        return self.emit(f"arith.minsi {x}, {y} : {dtype}")

    def logical(self, op: str, x, y):
        return self.emit(f"arith.{op} {x}, {y} : i1")

    def cmp(self, pred: str, x, y, dtype) -> str:
        """`pred` is one of eq ne lt le gt ge; floats use ordered compares
        (une for ne), as C++ comparisons in PyTorch's kernels do."""
        if is_float(dtype):
            fpred = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole",
                     "gt": "ogt", "ge": "oge"}[pred]
            return self.emit(f"arith.cmpf {fpred}, {x}, {y} : {dtype}")
        if dtype == "i1":
            ipred = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule",
                     "gt": "ugt", "ge": "uge"}[pred]
        else:
            ipred = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle",
                     "gt": "sgt", "ge": "sge"}[pred]
        return self.emit(f"arith.cmpi {ipred}, {x}, {y} : {dtype}")

    def isnan(self, x, dtype) -> str:
        return self.emit(f"arith.cmpf uno, {x}, {x} : {dtype}")

    def select(self, cond, x, y, dtype) -> str:
        return self.emit(f"arith.select {cond}, {x}, {y} : {dtype}")

    def math(self, fn: str, x, dtype) -> str:
        return self.emit(f"math.{fn} {x} : {dtype}")

    def math2(self, fn: str, x, y, dtype) -> str:
        return self.emit(f"math.{fn} {x}, {y} : {dtype}")

    def cast(self, x: str, src: str, dst: str) -> str:
        """Value conversion with PyTorch's semantics (float -> int truncates,
        int -> bool is `!= 0`, bool -> number is 0/1)."""
        if src == dst:
            return x
        if dst == "i1":
            zero = self.const(0, src)
            return self.cmp("ne", x, zero, src)
        if is_float(src) and is_float(dst):
            op = "arith.extf" if bit_width(dst) > bit_width(src) else "arith.truncf"
            if src in ("f16", "bf16") and dst in ("f16", "bf16"):
                x = self.emit(f"arith.extf {x} : {src} to f32")
                return self.emit(f"arith.truncf {x} : f32 to {dst}")
            return self.emit(f"{op} {x} : {src} to {dst}")
        if is_float(src):
            return self.emit(f"arith.fptosi {x} : {src} to {dst}")
        if is_float(dst):
            op = "arith.uitofp" if src == "i1" else "arith.sitofp"
            return self.emit(f"{op} {x} : {src} to {dst}")
        if bit_width(dst) > bit_width(src):
            op = "arith.extui" if src == "i1" else "arith.extsi"
            return self.emit(f"{op} {x} : {src} to {dst}")
        return self.emit(f"arith.trunci {x} : {src} to {dst}")


@dataclass
class OutputSpec:
    shape: tuple[int, ...]
    dtype: str
    exprs: list[str]
    init: Value | None = None  # None: tensor.empty (every element written)
    fill: object = None        # a scalar to fill the init with


@dataclass
class FunctionWriter:
    """One func.func: arguments, ops in order, results."""

    name: str
    counter: int = 0
    lines: list[str] = field(default_factory=list)
    constants: dict = field(default_factory=dict)
    constant_lines: list[str] = field(default_factory=list)
    op_counts: dict = field(default_factory=dict)
    location: str | None = None  # a `loc(...)` suffix for the ops being emitted

    def fresh(self, hint: str = "v") -> str:
        self.counter += 1
        return f"%{hint}{self.counter}"

    def _count(self, op: str) -> None:
        self.op_counts[op] = self.op_counts.get(op, 0) + 1

    def emit(self, text: str, hint: str = "v") -> str:
        name = self.fresh(hint)
        loc = f" {self.location}" if self.location else ""
        self.lines.append(f"  {name} = {text}{loc}")
        self._count(text.split(" ", 1)[0])
        return name

    def scalar(self, value, dtype: str) -> str:
        """A scalar constant, defined once at the top of the function."""
        literal = scalar_literal(value, dtype)
        key = (literal, dtype)
        if key not in self.constants:
            name = f"%c{len(self.constants)}"
            self.constants[key] = name
            typed = literal if dtype == "i1" else f"{literal} : {dtype}"
            self.constant_lines.append(f"  {name} = arith.constant {typed}")
        return self.constants[key]

    def index_const(self, value: int) -> str:
        key = (str(value), "index")
        if key not in self.constants:
            name = f"%c{len(self.constants)}"
            self.constants[key] = name
            self.constant_lines.append(f"  {name} = arith.constant {value} : index")
        return self.constants[key]

    # --- tensors -----------------------------------------------------------
    def empty(self, shape: Sequence[int], dtype: str) -> Value:
        shape = tuple(shape)
        name = self.emit(f"tensor.empty() : {tensor_type(shape, dtype)}", "e")
        return Value(name, shape, dtype)

    def full(self, shape: Sequence[int], dtype: str, value) -> Value:
        empty = self.empty(shape, dtype)
        c = self.scalar(value, dtype)
        name = self.emit(f"linalg.fill ins({c} : {dtype}) outs({empty.name} : {empty.type}) "
                         f"-> {empty.type}", "f")
        return Value(name, empty.shape, dtype)

    def dense(self, values, shape: Sequence[int], dtype: str) -> Value:
        """A constant tensor (values is a flat list)."""
        shape = tuple(shape)
        ty = tensor_type(shape, dtype)
        flat = list(values)
        if flat and all(v == flat[0] for v in flat):
            body = scalar_literal(flat[0], dtype)
        else:
            body = "[" + ", ".join(scalar_literal(v, dtype) for v in flat) + "]"
            if shape:
                body = self._nest(flat, shape, dtype)
        name = self.emit(f"arith.constant dense<{body}> : {ty}", "k")
        return Value(name, shape, dtype)

    def _nest(self, flat, shape, dtype) -> str:
        if len(shape) == 1:
            return "[" + ", ".join(scalar_literal(v, dtype) for v in flat) + "]"
        step = len(flat) // shape[0]
        return "[" + ", ".join(self._nest(flat[i * step:(i + 1) * step], shape[1:], dtype)
                               for i in range(shape[0])) + "]"

    def generic(self, num_loops: int, iterators: Sequence[str],
                inputs: Sequence[tuple[Value, Sequence[str]]],
                outputs: Sequence[OutputSpec],
                body: Callable[[Body, list[str]], Sequence[str]],
                hint: str = "g") -> list[Value]:
        """linalg.generic; `body` gets the block arguments (inputs then
        outputs) and returns the yielded scalars."""
        inits = []
        for out in outputs:
            if out.init is not None:
                inits.append(out.init)
            elif out.fill is not None:
                inits.append(self.full(out.shape, out.dtype, out.fill))
            else:
                inits.append(self.empty(out.shape, out.dtype))
        maps = [affine_map(num_loops, exprs) for _, exprs in inputs]
        maps += [affine_map(num_loops, out.exprs) for out in outputs]
        its = ", ".join(f'"{it}"' for it in iterators)
        b = Body(self)
        args = [self.fresh("a") for _ in list(inputs) + list(outputs)]
        yielded = body(b, args)
        ins = ""
        if inputs:
            ins = (" ins(" + ", ".join(v.name for v, _ in inputs) + " : " +
                   ", ".join(v.type for v, _ in inputs) + ")")
        outs = (" outs(" + ", ".join(v.name for v in inits) + " : " +
                ", ".join(v.type for v in inits) + ")")
        result_types = ", ".join(v.type for v in inits)
        if len(inits) > 1:
            result_types = f"({result_types})"
        block_args = ", ".join(f"{a}: {t}" for a, t in
                               zip(args, [v.dtype for v, _ in inputs] + [o.dtype for o in outputs]))
        loc = f" {self.location}" if self.location else ""
        results = self.fresh(hint)
        lhs = results if len(outputs) == 1 else f"{results}:{len(outputs)}"
        text = [f"  {lhs} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
                f"iterator_types = [{its}]}}{ins}{outs} {{",
                f"  ^bb0({block_args}):"]
        text += [f"    {line}" for line in b.lines]
        text.append(f"    linalg.yield {', '.join(yielded)} : "
                    f"{', '.join(o.dtype for o in outputs)}")
        text.append(f"  }} -> {result_types}{loc}")
        self.lines.extend(text)
        self._count("linalg.generic")
        if len(outputs) == 1:
            return [Value(results, inits[0].shape, inits[0].dtype)]
        return [Value(f"{results}#{i}", v.shape, v.dtype) for i, v in enumerate(inits)]

    def named(self, op: str, ins: Sequence[Value], init: Value, attrs: str = "",
              hint: str = "n") -> Value:
        """A named linalg op (matmul, conv_2d_nchw_fchw, ...)."""
        text = (f"linalg.{op}{attrs} ins({', '.join(v.name for v in ins)} : "
                f"{', '.join(v.type for v in ins)}) outs({init.name} : {init.type}) -> {init.type}")
        return Value(self.emit(text, hint), init.shape, init.dtype)

    # --- shapes ------------------------------------------------------------
    def collapse(self, x: Value, groups: Sequence[Sequence[int]], shape: Sequence[int]) -> Value:
        shape = tuple(shape)
        if shape == x.shape:
            return x
        g = ", ".join("[" + ", ".join(str(i) for i in grp) + "]" for grp in groups)
        name = self.emit(f"tensor.collapse_shape {x.name} [{g}] : {x.type} into "
                         f"{tensor_type(shape, x.dtype)}", "r")
        return Value(name, shape, x.dtype)

    def expand(self, x: Value, groups: Sequence[Sequence[int]], shape: Sequence[int]) -> Value:
        shape = tuple(shape)
        if shape == x.shape:
            return x
        g = ", ".join("[" + ", ".join(str(i) for i in grp) + "]" for grp in groups)
        out = ", ".join(str(d) for d in shape)
        name = self.emit(f"tensor.expand_shape {x.name} [{g}] output_shape [{out}] : "
                         f"{x.type} into {tensor_type(shape, x.dtype)}", "r")
        return Value(name, shape, x.dtype)

    def reshape(self, x: Value, shape: Sequence[int]) -> Value:
        """Any reshape of a contiguous tensor: collapse to the coarsest
        common grouping, then expand."""
        shape = tuple(shape)
        if shape == x.shape:
            return x
        src_groups, dst_groups, mid = reshape_groups(x.shape, shape)
        y = self.collapse(x, src_groups, mid)
        return self.expand(y, dst_groups, shape)

    def extract_slice(self, x: Value, offsets, sizes, strides, result_shape=None) -> Value:
        shape = tuple(result_shape) if result_shape is not None else tuple(sizes)
        text = (f"tensor.extract_slice {x.name}[{', '.join(map(str, offsets))}] "
                f"[{', '.join(map(str, sizes))}] [{', '.join(map(str, strides))}] : "
                f"{x.type} to {tensor_type(shape, x.dtype)}")
        return Value(self.emit(text, "sl"), shape, x.dtype)

    def insert_slice(self, src: Value, dst: Value, offsets, sizes, strides) -> Value:
        text = (f"tensor.insert_slice {src.name} into {dst.name}[{', '.join(map(str, offsets))}] "
                f"[{', '.join(map(str, sizes))}] [{', '.join(map(str, strides))}] : "
                f"{src.type} into {dst.type}")
        return Value(self.emit(text, "is"), dst.shape, dst.dtype)

    def pad(self, x: Value, low: Sequence[int], high: Sequence[int], value) -> Value:
        if not any(low) and not any(high):
            return x
        shape = tuple(d + lo + hi for d, lo, hi in zip(x.shape, low, high))
        c = self.scalar(value, x.dtype)
        idx = ", ".join(f"%i{k}" for k in range(x.rank))
        idx_types = ", ".join(f"%i{k}: index" for k in range(x.rank))
        name = self.fresh("p")
        loc = f" {self.location}" if self.location else ""
        self.lines.append(f"  {name} = tensor.pad {x.name} low[{', '.join(map(str, low))}] "
                          f"high[{', '.join(map(str, high))}] {{")
        self.lines.append(f"  ^bb0({idx_types}):")
        self.lines.append(f"    tensor.yield {c} : {x.dtype}")
        self.lines.append(f"  }} : {x.type} to {tensor_type(shape, x.dtype)}{loc}")
        self._count("tensor.pad")
        del idx
        return Value(name, shape, x.dtype)

    def text(self, args: Sequence[tuple[Value, str]], results: Sequence[tuple[Value, str]],
             attrs: str = "") -> str:
        """The function; args and results carry their attribute dictionaries
        (``{hwagent.name = "w"}``) as text."""
        arg_text = ", ".join(f"{v.name}: {v.type}{(' ' + a) if a else ''}" for v, a in args)
        res_text = ", ".join(f"{v.type}{(' ' + a) if a else ''}" for v, a in results)
        out = [f"func.func @{self.name}({arg_text})"]
        out[0] += f"\n    -> ({res_text}){attrs} {{"
        out += self.constant_lines
        out += self.lines
        out.append(f"  return {', '.join(v.name for v, _ in results)} : "
                   f"{', '.join(v.type for v, _ in results)}")
        out.append("}")
        return "\n".join(out)


def reshape_groups(src: Sequence[int], dst: Sequence[int]):
    """Reassociation groups that take `src` to `dst` through the coarsest
    common shape: returns (src groups, dst groups, common shape)."""
    src, dst = list(src), list(dst)
    if math.prod(src) != math.prod(dst):
        raise ValueError(f"cannot reshape {src} to {dst}")
    if not src or not dst:
        return [], [], []  # to or from rank 0: every dim is 1
    if math.prod(src) == 0:
        return [list(range(len(src)))], [list(range(len(dst)))], [0]
    sg, dg, mid = [], [], []
    i = j = 0
    while i < len(src) or j < len(dst):
        gs, gd = [], []
        ps = pd = 1
        # Take at least one from each side, then grow the smaller product.
        if i < len(src):
            gs.append(i); ps *= src[i]; i += 1
        if j < len(dst):
            gd.append(j); pd *= dst[j]; j += 1
        while ps != pd:
            if ps < pd:
                gs.append(i); ps *= src[i]; i += 1
            else:
                gd.append(j); pd *= dst[j]; j += 1
        # Trailing unit dims join the last group.
        if i == len(src) or j == len(dst):
            while i < len(src) and src[i] == 1:
                gs.append(i); i += 1
            while j < len(dst) and dst[j] == 1:
                gd.append(j); j += 1
        if not gs or not gd:
            # Unit dims left on one side only: attach to the previous group.
            sg[-1].extend(gs); dg[-1].extend(gd)
            continue
        sg.append(gs); dg.append(gd); mid.append(ps)
    return sg, dg, mid
