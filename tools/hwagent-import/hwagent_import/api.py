"""The importer's API: a PyTorch model in, a training step for hwagent out.

    from hwagent_import import import_model
    result = import_model(model, (x, y), out_dir="out", loss="cross_entropy",
                          optimizer=torch.optim.SGD(model.parameters(), lr=0.1))

writes out/train_step.mlir (@train_step and @eval_step), out/eval_step.mlir,
out/init.safetensors and out/manifest.json. Nothing is written unless the
whole import succeeds.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import torch

from . import capture, optim
from .capture import Captured, StepSpec
from .emit import RNG_RESULT, ArgSpec, emit_function, unsupported_ops, _unsupported
from .lowering.misc import uses_random
from .errors import ImportError_
from .tensors import write_safetensors

LOSSES = {
    "cross_entropy": lambda: torch.nn.functional.cross_entropy,
    "nll": lambda: torch.nn.functional.nll_loss,
    "mse": lambda: torch.nn.functional.mse_loss,
    "l1": lambda: torch.nn.functional.l1_loss,
    "smooth_l1": lambda: torch.nn.functional.smooth_l1_loss,
    "huber": lambda: torch.nn.functional.huber_loss,
    "bce_with_logits": lambda: torch.nn.functional.binary_cross_entropy_with_logits,
}


@dataclass
class ImportResult:
    out_dir: str
    manifest: dict
    train_ops: dict = field(default_factory=dict)
    eval_ops: dict = field(default_factory=dict)


def resolve_loss(loss) -> tuple[Callable, str]:
    if loss is None:
        loss = "cross_entropy"
    if isinstance(loss, str):
        key = loss.replace("-", "_").lower()
        if key not in LOSSES:
            raise ImportError_(f"unknown loss '{loss}': expected one of {', '.join(LOSSES)} "
                               "or a function loss_fn(outputs, targets)")
        return LOSSES[key](), key
    if isinstance(loss, torch.nn.Module):
        return loss, type(loss).__name__
    if callable(loss):
        return loss, getattr(loss, "__name__", "user function")
    raise ImportError_(f"the loss must be a name or a callable, not {type(loss).__name__}")


def check_loss_scale(scale) -> None:
    """A loss scale must be a positive power of two: multiplying by one and
    dividing by it again is exact in binary floating point, so the scaled
    float32 step equals the unscaled one bit for bit."""
    value = float(scale)
    if not (math.isfinite(value) and value > 0 and math.frexp(value)[0] == 0.5):
        raise ImportError_(f"--loss-scale {scale}: the loss scale must be a positive power "
                           f"of two (e.g. 256, 1024): scaling by one is exact, so the float32 "
                           f"step stays the unscaled one")


def default_correct(outputs, targets):
    """Correct predictions in a batch, when the task has them: class
    indices against logits (B, K) or (B, K, ...) -> a count; per-position
    targets (B, T) -> the mean over positions per sample, summed."""
    if not isinstance(outputs, torch.Tensor) or outputs.dim() < 2:
        return None
    if targets.dtype in (torch.int64, torch.int32) and targets.dim() == outputs.dim() - 1:
        if outputs.dim() == 2:
            pred = outputs.argmax(dim=1)
            return (pred == targets).to(torch.float32).sum()
        # (B, T, K) or (B, K, T...): the class dim is the last for sequences.
        class_dim = outputs.dim() - 1 if outputs.shape[:-1] == targets.shape else 1
        pred = outputs.argmax(dim=class_dim)
        hits = (pred == targets).to(torch.float32)
        per_sample = hits.reshape(hits.shape[0], -1).mean(dim=1)
        return per_sample.sum()
    return None


def _optimizer_spec(module, optimizer, hyper: dict | None):
    named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
    params = [p for _, p in named]
    names = [n for n, _ in named]
    hyper = dict(hyper or {})
    kind = hyper.pop("kind", None)
    if optimizer is None or kind is not None:
        kind = kind or "sgd"
        h = optim.GroupHyper(lr=hyper.pop("lr", 0.01 if kind == "sgd" else 0.001))
        for k, v in hyper.items():
            if v is not None:
                setattr(h, k, v)
        spec = optim.make(kind, h, len(params))
        existing = [None] * len(params)
    else:
        spec, existing = optim.from_torch(optimizer, params, names)
        for k, v in hyper.items():
            if v is not None:
                for h in spec.hyper:
                    setattr(h, k, v)
    state = [spec.initial_state(i, p, existing[i]) for i, p in enumerate(params)]
    return spec, state, spec.initial_shared(existing)


def import_model(model: torch.nn.Module, example_batch, out_dir: str, loss=None,
                 optimizer=None, optimizer_hyper: dict | None = None,
                 correct: Callable | None = default_correct, source_dir: str | None = None,
                 model_name: str | None = None, loss_scale: float = 1.0) -> ImportResult:
    """Import `model` trained on batches shaped like `example_batch`
    ((inputs, targets)) with `loss` and `optimizer` (a torch.optim optimizer
    over model.parameters(), or None for SGD; `optimizer_hyper` overrides
    hyper-parameters: {"kind": "adam", "lr": 1e-3, ...}). `loss_scale` (a
    power of two) scales the loss the backward pass differentiates and
    unscales the gradients before the update: fp16 backward programs keep
    small gradients, the float32 step is unchanged."""
    started = time.perf_counter()
    check_loss_scale(loss_scale)
    if not isinstance(model, torch.nn.Module):
        raise ImportError_(f"model() must return a torch.nn.Module, not {type(model).__name__}")
    if not (isinstance(example_batch, (tuple, list)) and len(example_batch) == 2):
        raise ImportError_("example_batch() must return (inputs, targets)")
    inputs = capture._as_tuple(example_batch[0])
    targets = example_batch[1]
    if not isinstance(targets, torch.Tensor):
        raise ImportError_("the targets of example_batch() must be one tensor")
    names = capture.input_names(model, len(inputs))
    target_name = "y" if "y" not in names else "target"
    data_names = names + [target_name]
    capture._check_data(list(inputs) + [targets], data_names)
    batch = inputs[0].shape[0]
    for t, n in zip(list(inputs) + [targets], data_names):
        if t.shape[0] != batch:
            raise ImportError_(f"data '{n}' has {t.shape[0]} samples along dimension 0, "
                               f"'{data_names[0]}' has {batch}: every array holds one batch")
    loss_fn, loss_name = resolve_loss(loss)
    spec_opt, opt_state, opt_shared = _optimizer_spec(model, optimizer, optimizer_hyper)
    spec = StepSpec(model, inputs, targets, loss_fn, spec_opt, opt_state, opt_shared,
                    data_names, loss_name, float(loss_scale))

    train = capture.capture_train(spec)
    eval_ = capture.capture_eval(spec, correct)
    for cap in (train, eval_):
        bad = unsupported_ops(cap.graph)
        if bad:
            raise _unsupported(bad[0])

    base_dir = source_dir
    train_text, train_ops, train_results = _emit_train(train, base_dir)
    eval_text, eval_ops, has_correct = _emit_eval(eval_, base_dir)
    manifest = _manifest(model_name or type(model).__name__, spec, train, train_results,
                         has_correct, train_ops, eval_ops, time.perf_counter() - started)

    header = (f"// Imported from PyTorch {torch.__version__} by hwagent-import: "
              f"{manifest['model']}, batch {batch}, loss {loss_name}, "
              f"optimizer {spec_opt.kind}.\n")
    _write_folder(out_dir, {
        "train_step.mlir": header + "module {\n" + train_text + "\n\n" + eval_text + "\n}\n",
        "eval_step.mlir": header + "module {\n" + eval_text + "\n}\n",
        "manifest.json": json.dumps(manifest, indent=2) + "\n",
    }, {e.name: e.value for e in train.state}, {"format": "hwagent-import", "step": "0",
                                                 "model": manifest["model"]})
    return ImportResult(out_dir, manifest, train_ops, eval_ops)


RNG_STATE = "hwagent:rng_step"


def _emit_train(cap: Captured, base_dir, rng_seed: int = 0):
    args: list[ArgSpec] = []
    outputs = list(cap.graph.graph.nodes)[-1].args[0]
    placeholders = [n for n in cap.graph.graph.nodes if n.op == "placeholder"]
    # Results 1.. update state cap.updated[k]; an update that returns the
    # argument itself (a buffer nothing changes) is not a result.
    kept = []
    for k, si in enumerate(cap.updated):
        node = outputs[k + 1]
        if node is placeholders[si]:
            continue
        kept.append((k + 1, si))
    result_of = {si: r for r, (_, si) in enumerate(kept, start=1)}
    for i, e in enumerate(cap.state):
        attrs = {}
        if i in result_of:
            attrs["hwagent.param"] = result_of[i]
        else:
            attrs["hwagent.role"] = "parameter"
        args.append(ArgSpec(e.name, attrs))
    results = [(0, ArgSpec("loss", {}))]
    for out_index, si in kept:
        results.append((out_index, ArgSpec(cap.state[si].name, {})))
    rng = None
    if uses_random(cap.graph):
        # The counter is state like any other: after the module's, before the data.
        position = len(cap.state)
        rng = (position, ArgSpec(RNG_STATE, {"hwagent.param": len(results)}))
        results.append((RNG_RESULT, ArgSpec(RNG_STATE, {})))
        cap.state.append(capture.StateEntry(RNG_STATE, "rng", torch.tensor(0, dtype=torch.int64)))
    for n in cap.data_names:
        args.append(ArgSpec(n, {}))
    em = emit_function("train_step", cap, args, results, base_dir, rng=rng, rng_seed=rng_seed)
    updated = [cap.state[si].name for _, si in kept] + ([RNG_STATE] if rng else [])
    return em.text, em.op_counts, updated


def _emit_eval(cap: Captured, base_dir):
    args = [ArgSpec(e.name, {"hwagent.role": "parameter"}) for e in cap.state]
    args += [ArgSpec(n, {}) for n in cap.data_names]
    outputs = list(cap.graph.graph.nodes)[-1].args[0]
    results = [(0, ArgSpec("loss", {}))]
    has_correct = len(outputs) > 1 and outputs[1] is not None
    if has_correct:
        results.append((1, ArgSpec("correct", {})))
    em = emit_function("eval_step", cap, args, results, base_dir)
    return em.text, em.op_counts, has_correct


def _tensor_info(name, t: torch.Tensor) -> dict:
    return {"name": name, "dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape)}


def _manifest(model_name, spec: StepSpec, train: Captured, updated: list[str], has_correct,
              train_ops, eval_ops, seconds) -> dict:
    data = list(spec.inputs) + [spec.targets]
    aten_ops: dict[str, int] = {}
    for n in train.graph.graph.nodes:
        if n.op == "call_function":
            key = str(n.target)
            aten_ops[key] = aten_ops.get(key, 0) + 1
    return {
        "format": "hwagent-import 1",
        "model": model_name,
        "torch": torch.__version__,
        "data": spec.data_names,
        "inputs": [_tensor_info(n, t) for n, t in zip(spec.data_names, data)][:-1],
        "targets": _tensor_info(spec.data_names[-1], spec.targets),
        "batch_size": int(spec.inputs[0].shape[0]),
        "loss": spec.loss_name,
        "optimizer": spec.optimizer.describe(),
        "loss_scale": spec.loss_scale,
        "functions": {"train": "train_step", "eval": "eval_step",
                      "eval_results": ["loss", "correct"] if has_correct else ["loss"]},
        "state": [dict(_tensor_info(e.name, e.value), kind=e.kind,
                       updated=e.name in updated) for e in train.state],
        "aten_ops": dict(sorted(aten_ops.items())),
        "mlir_ops": {"train_step": dict(sorted(train_ops.items())),
                     "eval_step": dict(sorted(eval_ops.items()))},
        "decomposed": sorted(train.decomposed),
        "import_seconds": round(seconds, 3),
    }


def _write_folder(out_dir: str, texts: dict[str, str], tensors: dict, metadata: dict) -> None:
    """Everything into a temporary folder first: a failed import leaves the
    destination as it was."""
    out_dir = os.path.abspath(out_dir)
    parent = os.path.dirname(out_dir)
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as e:
        raise ImportError_(f"cannot create {parent}: {e.strerror}") from e
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ImportError_(f"{out_dir} exists and is not a folder")
    try:
        tmp = tempfile.mkdtemp(prefix=".hwagent-import-", dir=parent)
    except OSError as e:
        raise ImportError_(f"cannot write in {parent}: {e.strerror}") from e
    try:
        for name, text in texts.items():
            with open(os.path.join(tmp, name), "w") as f:
                f.write(text)
        write_safetensors(os.path.join(tmp, "init.safetensors"), tensors, metadata)
        os.makedirs(out_dir, exist_ok=True)
        for name in list(texts) + ["init.safetensors"]:
            os.replace(os.path.join(tmp, name), os.path.join(out_dir, name))
    except OSError as e:
        raise ImportError_(f"cannot write {out_dir}: {e.strerror}") from e
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
