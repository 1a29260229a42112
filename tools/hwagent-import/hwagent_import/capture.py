"""Capturing a PyTorch training step as one graph of ATen ops.

The step is a flat function `(params, buffers, optimizer state, inputs,
targets) -> (loss, params', buffers', state')` that calls the module
functionally, takes the loss, differentiates it with torch.autograd.grad
and applies the optimizer update (optim.py). `make_fx` traces it in real
mode at the example batch's shapes (torch 1.13's symbolic and fake modes
fail on common models: ../shared/design/IMPORT-FACTS.md), with a curated
decomposition table; a second `make_fx` pass over `functionalize` turns
in-place updates (BatchNorm's running statistics) into values.

Every node carries where it came from (`node.meta["hwagent_source"]`): the
module path, the user's source line and the phase (forward, loss, backward,
update), recorded by module hooks and a wrapper of the tracer's
`create_node`, and carried through the second pass by an interpreter that
publishes the node it is running.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch
import torch.fx as fx
from torch.fx.experimental import proxy_tensor
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils import stateless

from .errors import ImportError_
from .optim import OptimizerSpec

aten = torch.ops.aten

# State that belongs to no parameter (the optimizer's step count, the
# random-number counter): named `hwagent:<key>`.
SHARED_PREFIX = "hwagent:optimizer_"

_TORCH_DIR = os.path.dirname(torch.__file__)
_OWN_DIR = os.path.dirname(os.path.abspath(__file__))
_STDLIB_DIR = os.path.dirname(contextlib.__file__)


def _decompositions(record: set) -> dict:
    """The ATen composites the emitter does not lower itself: backward
    formulas, normalizations, losses and activations, each into ops it
    lowers. Ops it lowers directly (copies, casts, views, variance) stay:
    their decompositions route through prims and break functionalization."""
    from torch._decomp import get_decompositions
    names = [
        "_log_softmax", "_log_softmax_backward_data", "_softmax", "_softmax_backward_data",
        "nll_loss_forward", "nll_loss_backward", "nll_loss2d_backward",
        "native_batch_norm", "native_batch_norm_backward", "native_layer_norm",
        "native_layer_norm_backward", "native_group_norm", "native_group_norm_backward",
        "threshold_backward", "addmm", "t", "hardtanh", "hardtanh_backward", "relu6",
        "gelu", "gelu_backward", "embedding", "mse_loss", "mse_loss_backward",
        "sigmoid_backward", "tanh_backward", "silu", "silu_backward", "hardswish",
        "hardswish_backward", "hardsigmoid", "hardsigmoid_backward", "leaky_relu",
        "leaky_relu_backward", "elu", "elu_backward", "softplus", "softplus_backward",
        "log_sigmoid_forward", "log_sigmoid_backward", "binary_cross_entropy",
        "binary_cross_entropy_backward", "binary_cross_entropy_with_logits",
        "huber_loss_backward", "mish", "mish_backward", "glu", "glu_backward", "prelu",
        "prelu_backward", "rsub", "masked_fill", "mv", "dot", "logsumexp",
        "select_backward", "slice_backward", "native_dropout_backward", "stack",
        "linalg_vector_norm", "std", "std_mean", "l1_loss", "smooth_l1_loss",
        "smooth_l1_loss_backward", "soft_margin_loss", "soft_margin_loss_backward",
        "xlogy", "logit", "logit_backward", "celu", "selu", "split", "unbind", "new_zeros",
        "new_ones", "new_full", "zeros", "ones", "_unsafe_view", "diagonal_backward",
        "hardshrink", "softshrink", "frac", "nan_to_num", "lerp", "eye",
    ]
    ops = []
    for n in names:
        packet = getattr(aten, n, None)
        if packet is not None:
            ops.append(packet)
    def recorded(op, fn):
        def decompose(*args, **kwargs):
            record.add(str(op))
            return fn(*args, **kwargs)
        return decompose
    return {op: recorded(op, fn) for op, fn in get_decompositions(ops).items()}


@dataclass
class Source:
    """Where a node came from."""

    phase: str                       # forward | loss | backward | update | eval
    scope: str = ""                  # module path ("layer1.0.conv1"), "" for the root
    file: str | None = None          # the user's file and line, when known
    line: int | None = None
    code: str | None = None

    def where(self) -> str | None:
        if self.file is None:
            return None
        text = f"{self.file}:{self.line}"
        if self.code:
            text += f": {self.code.strip()}"
        return text


class _Recorder:
    """Annotates every node the tracer creates with its Source."""

    def __init__(self, root: torch.nn.Module):
        self.names = {id(m): n for n, m in root.named_modules()}
        self.scopes: list[str] = []
        self.phase = "forward"
        self.current: fx.Node | None = None  # the node being re-traced
        self._stack = contextlib.ExitStack()

    def __enter__(self):
        original = proxy_tensor.PythonKeyTracer.create_node
        recorder = self

        def create_node(tracer, *args, **kwargs):
            node = original(tracer, *args, **kwargs)
            node.meta["hwagent_source"] = recorder.source()
            return node

        proxy_tensor.PythonKeyTracer.create_node = create_node
        self._stack.callback(setattr, proxy_tensor.PythonKeyTracer, "create_node", original)

        def pre(module, args):
            self.scopes.append(self.names.get(id(module), self.scopes[-1] if self.scopes else ""))

        def post(module, args, out):
            if self.scopes:
                self.scopes.pop()

        h1 = torch.nn.modules.module.register_module_forward_pre_hook(pre)
        h2 = torch.nn.modules.module.register_module_forward_hook(post)
        self._stack.callback(h1.remove)
        self._stack.callback(h2.remove)
        return self

    def __exit__(self, *exc):
        self._stack.close()
        return False

    @contextlib.contextmanager
    def in_phase(self, phase: str):
        saved = self.phase
        self.phase = phase
        try:
            yield
        finally:
            self.phase = saved

    def source(self) -> Source:
        if self.current is not None:
            carried = self.current.meta.get("hwagent_source")
            if carried is not None:
                return carried
        src = Source(self.phase, self.scopes[-1] if self.scopes else "")
        frame = sys._getframe(2)
        while frame is not None:
            path = frame.f_code.co_filename
            if not (path.startswith(_TORCH_DIR) or path.startswith(_OWN_DIR)
                    or path.startswith(_STDLIB_DIR) or path.startswith("<")):
                src.file = path
                src.line = frame.f_lineno
                try:
                    import linecache
                    src.code = linecache.getline(path, frame.f_lineno)
                except Exception:  # pragma: no cover - best effort
                    src.code = None
                break
            frame = frame.f_back
        return src


class _CarryingInterpreter(fx.Interpreter):
    """Runs a traced graph while publishing the running node, so the nodes
    the second pass creates inherit its Source."""

    def __init__(self, gm: fx.GraphModule, recorder: _Recorder):
        super().__init__(gm)
        self.recorder = recorder

    def run_node(self, n: fx.Node) -> Any:
        self.recorder.current = n
        try:
            return super().run_node(n)
        finally:
            self.recorder.current = None


@dataclass
class StateEntry:
    """A tensor carried from step to step: parameter, buffer or optimizer state."""

    name: str
    kind: str          # parameter | frozen | buffer | optimizer
    value: torch.Tensor


@dataclass
class Captured:
    graph: fx.GraphModule
    state: list[StateEntry]          # arguments before the data, in order
    updated: list[int]               # for results 1.., the state index each updates
    data_names: list[str]            # inputs then targets
    data: list[torch.Tensor]
    decomposed: set = field(default_factory=set)  # the ATen ops decomposed


def _refresh_rnn_weights(module: torch.nn.Module) -> list:
    """nn.RNN/LSTM/GRU keep `_flat_weights` pointing at their own tensors, so
    functional_call's swapped parameters go unused; refresh the list from the
    attributes at every call (IMPORT-FACTS: the LSTM trap)."""
    handles = []
    for m in module.modules():
        if isinstance(m, torch.nn.RNNBase):
            def hook(mod, args):
                mod._flat_weights = [getattr(mod, n) if hasattr(mod, n) else None
                                     for n in mod._flat_weights_names]
            handles.append(m.register_forward_pre_hook(hook))
    return handles


def _as_tuple(x) -> tuple:
    if isinstance(x, torch.Tensor):
        return (x,)
    if isinstance(x, (tuple, list)) and all(isinstance(t, torch.Tensor) for t in x):
        return tuple(x)
    raise ImportError_(
        "example_batch() must return (inputs, targets) where inputs is a tensor or a tuple "
        f"of tensors; got {type(x).__name__}")


def input_names(module: torch.nn.Module, count: int) -> list[str]:
    """Data argument names from forward's signature (`x`, `input_ids`)."""
    try:
        params = [p for p in inspect.signature(module.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        names = [p.name for p in params[:count]]
    except (TypeError, ValueError):
        names = []
    if len(names) < count or len(set(names)) < count:
        names = ["x"] if count == 1 else [f"x{i}" for i in range(count)]
    return names


def _check_data(tensors: Sequence[torch.Tensor], names: Sequence[str]) -> None:
    for t, n in zip(tensors, names):
        if t.dim() == 0:
            raise ImportError_(f"data '{n}' is a scalar: the batch must lie along dimension 0")
        if t.dtype not in (torch.float32, torch.float16, torch.float64, torch.int64,
                           torch.int32, torch.uint8, torch.int8, torch.bool):
            raise ImportError_(f"data '{n}' has dtype {t.dtype}, which hwagent-run cannot feed")
        if t.is_complex() or not t.is_contiguous() and t.layout != torch.strided:
            raise ImportError_(f"data '{n}' must be a dense real tensor")


def _trace(fn: Callable, args: Sequence[torch.Tensor], recorder: _Recorder,
           what: str, decomposed: set) -> fx.GraphModule:
    """make_fx in real mode, then functionalize the traced graph."""
    from functorch.experimental import functionalize
    try:
        with recorder:
            table = _decompositions(decomposed)
            first = make_fx(fn, decomposition_table=table, tracing_mode="real")(*args)
            _check_in_place_on_data(first, recorder, what)
            interp = _CarryingInterpreter(first, recorder)
            # Functionalizing turns in-place composites (hardtanh_, silu_)
            # into their functional forms: decompose those too.
            second = make_fx(functionalize(interp.run), decomposition_table=table,
                             tracing_mode="real")(*args)
    except ImportError_:
        raise
    except RuntimeError as e:
        raise _explain(e, what) from e
    second.graph.eliminate_dead_code()
    second.recompile()
    return second


def _user_frame_of(tb) -> str | None:
    frames = [f for f in __import__("traceback").extract_tb(tb)
              if not (f.filename.startswith(_TORCH_DIR) or f.filename.startswith(_OWN_DIR)
                      or f.filename.startswith(_STDLIB_DIR))]
    if not frames:
        return None
    f = frames[-1]
    return f"{f.filename}:{f.lineno}: {(f.line or '').strip()}"


def _explain(e: RuntimeError, what: str) -> ImportError_:
    text = str(e)
    where = _user_frame_of(e.__traceback__)
    if "get value out of a tracing tensor" in text or "data-dependent" in text:
        return ImportError_(
            f"the {what} branches on a tensor's value (data-dependent control flow)", where,
            "a compiled step has one path: compute both branches and combine them with "
            "torch.where, or move the decision out of forward()")
    return ImportError_(f"tracing the {what} failed: {text.splitlines()[0]}", where)


def _check_in_place_on_data(gm: fx.GraphModule, recorder: _Recorder, what: str) -> None:
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    data = set(placeholders[getattr(recorder, "first_data", len(placeholders)):])
    for n in gm.graph.nodes:
        if n.op != "call_function" or not isinstance(n.target, torch._ops.OpOverload):
            continue
        schema = n.target._schema
        if not schema.arguments or schema.arguments[0].alias_info is None:
            continue
        if not schema.arguments[0].alias_info.is_write:
            continue
        if n.args and n.args[0] in data:
            src = n.meta.get("hwagent_source")
            names = getattr(recorder, "data_names", [])
            k = placeholders.index(n.args[0]) - recorder.first_data
            name = names[k] if 0 <= k < len(names) else n.args[0].name
            raise ImportError_(
                f"the {what} modifies its input '{name}' in place "
                f"({schema.name})", src.where() if src else None,
                "use the out-of-place form (x = x + 1, not x.add_(1) or x += 1 on an input)")


@dataclass
class StepSpec:
    module: torch.nn.Module
    inputs: tuple[torch.Tensor, ...]
    targets: torch.Tensor
    loss: Callable
    optimizer: OptimizerSpec
    optimizer_state: list[list[torch.Tensor]]
    optimizer_shared: list[torch.Tensor]
    data_names: list[str]
    loss_name: str = "loss"
    # Static loss scaling for fp16 backward programs (the simulated ANE):
    # the backward pass differentiates loss * loss_scale and the update
    # divides the gradients by it again. A power of two, so the float32
    # step is bit for bit the unscaled one (docs/importer.md, "fp16 on the
    # ANE").
    loss_scale: float = 1.0


def _module_state(module: torch.nn.Module):
    """Parameters and the persistent buffers (what state_dict holds). A
    non-persistent buffer (a causal mask) is part of the module's code, not
    its state: the trace keeps it as a constant."""
    params = [(n, p) for n, p in module.named_parameters()]
    transient = set()
    for prefix, m in module.named_modules():
        for b in getattr(m, "_non_persistent_buffers_set", ()):
            transient.add(f"{prefix}.{b}" if prefix else b)
    buffers = [(n, b) for n, b in module.named_buffers() if n not in transient]
    return params, buffers


def _call_loss(spec: StepSpec, out, targets):
    try:
        loss = spec.loss(out, targets)
    except ImportError_:
        raise
    except Exception as e:
        kind = type(out).__name__
        if isinstance(out, torch.Tensor):
            kind = f"a tensor of shape {tuple(out.shape)}"
        raise ImportError_(
            f"the loss cannot take what forward() returns ({kind}) with targets of shape "
            f"{tuple(targets.shape)}: {str(e).splitlines()[0] if str(e) else type(e).__name__}",
            _user_frame_of(e.__traceback__),
            "return the logits as one tensor, or give a loss_fn(outputs, targets) that takes "
            "what forward() returns") from e
    if not isinstance(loss, torch.Tensor) or loss.dim() != 0 or not loss.is_floating_point():
        raise ImportError_("the loss must be a floating-point scalar tensor "
                           f"(got {type(loss).__name__}"
                           f"{' of shape ' + str(tuple(loss.shape)) if isinstance(loss, torch.Tensor) else ''})",
                           None, "reduce it with .mean() or .sum()")
    return loss


def capture_train(spec: StepSpec) -> Captured:
    module = spec.module
    module.train()
    params, buffers = _module_state(module)
    trainable = [i for i, (_, p) in enumerate(params) if p.requires_grad]
    if not trainable:
        raise ImportError_("the module has no parameter that requires grad: nothing to train")
    state: list[StateEntry] = []
    for n, p in params:
        state.append(StateEntry(n, "parameter" if p.requires_grad else "frozen",
                                p.detach().clone().contiguous()))
    for n, b in buffers:
        state.append(StateEntry(n, "buffer", b.detach().clone().contiguous()))
    opt_entries: list[list[int]] = []
    for k, i in enumerate(trainable):
        keys = spec.optimizer.state_keys(k)
        idx = []
        for key, value in zip(keys, spec.optimizer_state[k]):
            idx.append(len(state))
            state.append(StateEntry(f"{params[i][0]}:{key}", "optimizer", value))
        opt_entries.append(idx)
    shared_entries = []
    for key, value in zip(spec.optimizer.shared_keys(), spec.optimizer_shared):
        shared_entries.append(len(state))
        state.append(StateEntry(f"{SHARED_PREFIX}{key}", "optimizer", value))
    num_params, num_buffers = len(params), len(buffers)
    names = [n for n, _ in params] + [n for n, _ in buffers]
    n_inputs = len(spec.inputs)
    recorder = _Recorder(module)
    recorder.first_data = len(state)
    recorder.data_names = list(spec.data_names)

    def train_step(*args):
        p_args = args[:num_params]
        b_args = args[num_params:num_params + num_buffers]
        st = dict(zip(names, list(p_args) + list(b_args)))
        data = args[len(state):]
        inputs, targets = data[:n_inputs], data[n_inputs]
        with recorder.in_phase("forward"):
            out = stateless.functional_call(module, st, tuple(inputs))
        with recorder.in_phase("loss"):
            loss = _call_loss(spec, out, targets)
        grad_params = [p_args[i] for i in trainable]
        scale = spec.loss_scale
        with recorder.in_phase("backward"):
            seed = loss * scale if scale != 1.0 else loss
            grads = torch.autograd.grad(seed, grad_params, allow_unused=True)
        grads = [torch.zeros_like(p) if g is None else g for p, g in zip(grad_params, grads)]
        with recorder.in_phase("update"):
            if scale != 1.0:
                grads = [g * (1.0 / scale) for g in grads]
            opt_state = [[args[j] for j in idx] for idx in opt_entries]
            shared = [args[j] for j in shared_entries]
            new_params, new_state, new_shared = spec.optimizer.update(
                grad_params, grads, opt_state, shared)
        results = [loss] + list(new_params)
        results += [st[n] for n, _ in buffers]  # mutated in place by BatchNorm
        for s in new_state:
            results += list(s)
        results += list(new_shared)
        return tuple(results)

    args = []
    for e in state:
        t = e.value.clone()
        if e.kind == "parameter":
            t.requires_grad_(True)
        args.append(t)
    args += list(spec.inputs) + [spec.targets]
    handles = _refresh_rnn_weights(module)
    decomposed: set = set()
    try:
        gm = _trace(train_step, args, recorder, "training step", decomposed)
    finally:
        for h in handles:
            h.remove()
    updated = list(trainable)
    updated += [num_params + j for j in range(num_buffers)]
    for idx in opt_entries:
        updated += idx
    updated += shared_entries
    return Captured(gm, state, updated, list(spec.data_names),
                    list(spec.inputs) + [spec.targets], decomposed)


def capture_eval(spec: StepSpec, correct: Callable | None) -> Captured:
    """forward in eval mode, the loss, and the count of correct predictions."""
    module = spec.module
    was_training = module.training
    module.eval()
    params, buffers = _module_state(module)
    state = [StateEntry(n, "parameter", p.detach().clone().contiguous()) for n, p in params]
    state += [StateEntry(n, "buffer", b.detach().clone().contiguous()) for n, b in buffers]
    names = [e.name for e in state]
    n_inputs = len(spec.inputs)
    recorder = _Recorder(module)
    recorder.first_data = len(state)
    recorder.data_names = list(spec.data_names)

    def eval_step(*args):
        st = dict(zip(names, args[:len(state)]))
        data = args[len(state):]
        inputs, targets = data[:n_inputs], data[n_inputs]
        with recorder.in_phase("eval"):
            out = stateless.functional_call(module, st, tuple(inputs))
            loss = _call_loss(spec, out, targets)
            results = [loss]
            if correct is not None:
                results.append(correct(out, targets))
        return tuple(results)

    args = [e.value.clone() for e in state] + list(spec.inputs) + [spec.targets]
    handles = _refresh_rnn_weights(module)
    decomposed: set = set()
    try:
        with torch.no_grad():
            gm = _trace(eval_step, args, recorder, "evaluation step", decomposed)
    finally:
        for h in handles:
            h.remove()
        module.train(was_training)
    return Captured(gm, state, [], list(spec.data_names), list(spec.inputs) + [spec.targets],
                    decomposed)
