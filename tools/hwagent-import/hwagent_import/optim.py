"""Optimizer updates written as pure functions of tensors.

The training step is traced as one function, so the update must be a
function of (parameters, gradients, state) returning new tensors. These
mirror torch.optim's single-tensor code paths of PyTorch 1.13 operation by
operation (the order of roundings included), so an imported step updates
parameters as `optimizer.step()` does. The scalar bias corrections that
torch.optim computes in Python doubles are computed here in f64 tensors and
rounded to f32 where PyTorch rounds them: at their use in a float op.

State tensors are named `<parameter>:<key>` (`fc.weight:exp_avg`); a colon
never appears in a state_dict key, so the names cannot collide with the
module's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import torch

from .errors import ImportError_


@dataclass
class GroupHyper:
    """One parameter group's hyper-parameters (torch.optim's names)."""

    lr: float
    momentum: float = 0.0
    dampening: float = 0.0
    weight_decay: float = 0.0
    nesterov: bool = False
    maximize: bool = False
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    amsgrad: bool = False


@dataclass
class OptimizerSpec:
    """Which update and the hyper-parameters of every trainable parameter."""

    kind: str  # "sgd" | "adam" | "adamw"
    hyper: list[GroupHyper] = field(default_factory=list)  # one per parameter

    def describe(self) -> dict:
        h = self.hyper[0] if self.hyper else None
        out = {"kind": self.kind}
        if h is not None:
            out.update({"lr": h.lr, "weight_decay": h.weight_decay})
            if self.kind == "sgd":
                out.update({"momentum": h.momentum, "dampening": h.dampening,
                            "nesterov": h.nesterov})
            else:
                out.update({"betas": list(h.betas), "eps": h.eps, "amsgrad": h.amsgrad})
            if h.maximize:
                out["maximize"] = True
        if len({repr(x) for x in self.hyper}) > 1:
            out["parameter_groups"] = len({repr(x) for x in self.hyper})
        return out

    def state_keys(self, i: int) -> list[str]:
        """The state tensors parameter `i` carries, in argument order."""
        h = self.hyper[i]
        if self.kind == "sgd":
            return ["momentum_buffer"] if h.momentum != 0 else []
        keys = ["exp_avg", "exp_avg_sq"]
        if h.amsgrad:
            keys.append("max_exp_avg_sq")
        return keys

    def shared_keys(self) -> list[str]:
        """State shared by every parameter: the step count. torch.optim keeps
        one per parameter, but they all advance together; one tensor lets the
        bias corrections be computed once per step, not once per parameter."""
        if self.kind in ("adam", "adamw"):
            return ["step"]
        if any(h.momentum != 0 and h.dampening != 0 for h in self.hyper):
            # torch.optim clones the first gradient into the buffer (no
            # dampening on step 1): the step count tells.
            return ["step"]
        return []

    def initial_state(self, i: int, param: torch.Tensor, existing: dict | None) -> list[torch.Tensor]:
        """Zeroed state, or the optimizer's own when it already stepped."""
        out = []
        for key in self.state_keys(i):
            value = None if existing is None else existing.get(key)
            if value is None:
                value = torch.zeros_like(param)
            out.append(value.detach().clone().contiguous())
        return out

    def initial_shared(self, existing: list) -> list[torch.Tensor]:
        steps = {float(e["step"]) for e in existing if e and "step" in e}
        if len(steps) > 1:
            raise ImportError_(
                f"the optimizer's parameters have taken different numbers of steps "
                f"({sorted(steps)}): hwagent keeps one step count")
        step = steps.pop() if steps else 0.0
        return [torch.tensor(step, dtype=torch.float32) for _ in self.shared_keys()]

    def update(self, params: Sequence[torch.Tensor], grads: Sequence[torch.Tensor],
               state: Sequence[Sequence[torch.Tensor]], shared: Sequence[torch.Tensor]):
        """New parameters, new per-parameter state and new shared state."""
        new_params, new_state = [], []
        step = shared[0] if shared else None
        new_step = step + 1 if step is not None else None
        scalars: dict = {}
        for i, (p, g, s) in enumerate(zip(params, grads, state)):
            h = self.hyper[i]
            if self.kind == "sgd":
                np_, ns = _sgd(p, g, list(s), h, step)
            else:
                key = (h.lr, h.betas)
                if key not in scalars:
                    scalars[key] = _adam_scalars(new_step, h)
                np_, ns = _adam(p, g, list(s), h, self.kind == "adamw", scalars[key])
            new_params.append(np_)
            new_state.append(ns)
        return new_params, new_state, ([new_step] if step is not None else [])


def _sgd(p, g, s, h: GroupHyper, step):
    d_p = -g if h.maximize else g
    if h.weight_decay != 0:
        d_p = d_p.add(p, alpha=h.weight_decay)
    new_state = []
    if h.momentum != 0:
        buf = s[0]
        if h.dampening != 0:
            later = buf.mul(h.momentum).add(d_p, alpha=1 - h.dampening)
            buf = torch.where(step == 0, d_p, later)
        else:
            # A zero buffer times momentum plus the gradient is the gradient
            # exactly: step 1 clones the gradient, as torch.optim does.
            buf = buf.mul(h.momentum).add(d_p)
        new_state = [buf]
        d_p = d_p.add(buf, alpha=h.momentum) if h.nesterov else buf
    return p.add(d_p, alpha=-h.lr), new_state


def _adam_scalars(step_t, h: GroupHyper):
    """torch.optim: step = step_t.item(); the bias corrections in Python
    doubles, rounded to f32 where a tensor op uses them."""
    beta1, beta2 = h.betas
    step = step_t.to(torch.float64)
    bias_correction1 = 1 - torch.pow(torch.tensor(beta1, dtype=torch.float64), step)
    bias_correction2 = 1 - torch.pow(torch.tensor(beta2, dtype=torch.float64), step)
    step_size = h.lr / bias_correction1
    bias_correction2_sqrt = torch.sqrt(bias_correction2)
    return (-step_size).to(torch.float32), bias_correction2_sqrt.to(torch.float32)


def _adam(p, g, s, h: GroupHyper, decoupled: bool, scalars):
    exp_avg, exp_avg_sq = s[0], s[1]
    neg_step, bc2_sqrt = scalars
    grad = -g if h.maximize else g
    if decoupled:
        p = p.mul(1 - h.lr * h.weight_decay)
    elif h.weight_decay != 0:
        grad = grad.add(p, alpha=h.weight_decay)
    beta1, beta2 = h.betas
    exp_avg = exp_avg.mul(beta1).add(grad, alpha=1 - beta1)
    exp_avg_sq = exp_avg_sq.mul(beta2).addcmul(grad, grad, value=1 - beta2)
    new_state = [exp_avg, exp_avg_sq]
    second = exp_avg_sq
    if h.amsgrad:
        second = torch.maximum(s[2], exp_avg_sq)
        new_state.append(second)
    # (v.sqrt() / float(bc2_sqrt)).add_(float(eps))
    denom = (second.sqrt() / bc2_sqrt).add(h.eps)
    # param.addcdiv_(exp_avg, denom, value=-step_size): p + (-s * m) / d
    p = p + (neg_step * exp_avg) / denom
    return p, new_state


def from_torch(optimizer: torch.optim.Optimizer, params_in_order: Sequence[torch.nn.Parameter],
               names: Sequence[str]) -> tuple[OptimizerSpec, list[dict | None]]:
    """The spec of a torch.optim optimizer over `params_in_order`, and each
    parameter's existing state (None when it has not stepped)."""
    kinds = {torch.optim.SGD: "sgd", torch.optim.Adam: "adam", torch.optim.AdamW: "adamw"}
    kind = kinds.get(type(optimizer))
    if kind is None:
        raise ImportError_(
            f"optimizer {type(optimizer).__name__} is not supported: use torch.optim.SGD, "
            "Adam or AdamW (or --optimizer sgd|adam|adamw)")
    by_id = {}
    for group in optimizer.param_groups:
        for p in group["params"]:
            by_id[id(p)] = group
    spec = OptimizerSpec(kind)
    existing = []
    for p, name in zip(params_in_order, names):
        group = by_id.get(id(p))
        if group is None:
            raise ImportError_(
                f"parameter '{name}' requires grad but is not in the optimizer's parameter "
                "groups: pass model.parameters() to the optimizer, or set requires_grad=False")
        for unsupported in ("foreach", "capturable", "differentiable", "fused"):
            if group.get(unsupported):
                pass  # numerics are the single-tensor path's either way
        lr = group["lr"]
        if isinstance(lr, torch.Tensor):
            lr = float(lr)
        if kind == "sgd":
            h = GroupHyper(lr=lr, momentum=group.get("momentum", 0.0),
                           dampening=group.get("dampening", 0.0),
                           weight_decay=group.get("weight_decay", 0.0),
                           nesterov=group.get("nesterov", False),
                           maximize=group.get("maximize", False))
        else:
            h = GroupHyper(lr=lr, betas=tuple(group["betas"]), eps=group["eps"],
                           weight_decay=group.get("weight_decay", 0.0),
                           amsgrad=group.get("amsgrad", False),
                           maximize=group.get("maximize", False))
        spec.hyper.append(h)
        state = optimizer.state.get(p)
        existing.append(dict(state) if state else None)
    return spec, existing


def make(kind: str, hyper: GroupHyper, count: int) -> OptimizerSpec:
    if kind not in ("sgd", "adam", "adamw"):
        raise ImportError_(f"unknown optimizer '{kind}': expected sgd, adam or adamw")
    return OptimizerSpec(kind, [hyper] * count)
