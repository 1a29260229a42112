"""Per-op numerics against PyTorch eager.

Each case is a small module exercising one op (or one family) in forward
and backward: it is imported, trained three SGD steps by hwagent-run on the
CPU and by PyTorch (nn.Module + torch.optim) from the same init on the same
batches, and the per-step losses and the final parameters are compared.
"""

from __future__ import annotations

import math
import unittest

import torch
import torch.nn as nn
import torch.nn.functional as F

from harness import WorkDir, namespace

LOSS_RTOL = 1e-5
PARAM_ATOL = 2e-5


class Apply(nn.Module):
    """A linear layer (so there is something to train), then `fn`."""

    def __init__(self, fn, width=8, out=None):
        super().__init__()
        self.fn = fn
        self.lin = nn.Linear(width, out or width)

    def forward(self, x):
        return self.fn(self.lin(x))


def regression(fn, in_shape=(4, 8), width=8, out=None, target=None):
    """A case: Apply(fn) on inputs of in_shape, MSE against a random target
    of the output's shape."""
    def model():
        torch.manual_seed(0)
        return Apply(fn, width, out)

    def batch():
        x = torch.randn(*in_shape)
        with torch.no_grad():
            y = model()(x)
        t = torch.randn_like(y) if target is None else target(y)
        return x, t
    return namespace(model, batch, lambda p: torch.optim.SGD(p, lr=0.05), lambda: F.mse_loss)


def module_case(make, in_shape, target_shape=None, classes=None, lr=0.05, loss=None):
    def model():
        torch.manual_seed(0)
        return make()

    def batch():
        x = torch.randn(*in_shape)
        if classes is not None:
            return x, torch.randint(0, classes, (in_shape[0],))
        with torch.no_grad():
            y = model()(x)
        return x, torch.randn_like(y)
    return namespace(model, batch, lambda p: torch.optim.SGD(p, lr=lr),
                     (lambda: loss) if loss else (None if classes else (lambda: F.mse_loss)))


class OpParity(WorkDir):
    def check(self, user, steps=3, loss_rtol=LOSS_RTOL, param_atol=PARAM_ATOL):
        r = self.parity(user, steps)
        cpu = r["cpu"]
        self.assertEqual(len(cpu["losses"]), steps)
        for i, (a, b) in enumerate(zip(cpu["losses"], r["torch_losses"])):
            self.assertTrue(math.isfinite(a), f"step {i}: loss {a}")
            self.assertLessEqual(abs(a - b), loss_rtol * max(abs(b), 1e-6),
                                 f"step {i}: hwagent {a!r} vs PyTorch {b!r}")
        for k, v in r["torch_state"].items():
            if not v.is_floating_point():
                self.assertTrue(torch.equal(cpu["state"][k], v), k)
                continue
            diff = float((cpu["state"][k].double() - v.double()).abs().max())
            self.assertLessEqual(diff, param_atol + 1e-4 * float(v.abs().max()), k)
        return r


def _case(name, user, **kw):
    def test(self):
        self.check(user, **kw)
    test.__name__ = f"test_{name}"
    setattr(OpParity, test.__name__, test)


# --- elementwise ------------------------------------------------------------------
for _name, _fn in {
    "exp": lambda x: torch.exp(0.5 * x), "log": lambda x: torch.log(x * x + 1),
    "sqrt": lambda x: torch.sqrt(x * x + 0.5), "rsqrt": lambda x: torch.rsqrt(x * x + 0.5),
    "tanh": torch.tanh, "sigmoid": torch.sigmoid, "relu": F.relu, "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "silu": F.silu,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.1), "elu": F.elu, "softplus": F.softplus,
    "hardswish": F.hardswish, "hardsigmoid": F.hardsigmoid, "relu6": F.relu6,
    "clamp": lambda x: torch.clamp(x, -0.3, 0.4), "pow2": lambda x: x ** 2,
    "pow3": lambda x: x ** 3, "pow_half": lambda x: (x * x + 1) ** 0.5,
    "abs": torch.abs, "neg_div": lambda x: -x / 3.0,
    "where": lambda x: torch.where(x > 0, x * 2, x * 0.5),
    "maximum": lambda x: torch.maximum(x, x.flip(-1)),
    "add_broadcast": lambda x: x + x.mean(dim=0, keepdim=True),
    "mul_broadcast_row": lambda x: x * x[:, :1],
    "reciprocal": lambda x: 1.0 / (x * x + 1), "sin_cos": lambda x: torch.sin(x) + torch.cos(x),
    "erf": torch.erf, "log1p_expm1": lambda x: torch.log1p(x * x) + torch.expm1(0.1 * x),
    "mish": F.mish, "logsigmoid": F.logsigmoid,
}.items():
    _case(_name, regression(_fn))

# --- reductions and normalization ---------------------------------------------------
for _name, _fn in {
    "sum_dim": lambda x: x.sum(dim=1, keepdim=True) * x,
    "mean_all": lambda x: x - x.mean(), "amax": lambda x: x - x.amax(dim=1, keepdim=True),
    "var": lambda x: x * x.var(dim=1, keepdim=True), "std": lambda x: x * x.std(dim=0),
    "softmax": lambda x: F.softmax(x, dim=-1), "log_softmax": lambda x: F.log_softmax(x, -1),
    "logsumexp": lambda x: x - torch.logsumexp(x, dim=1, keepdim=True),
    "cumsum": lambda x: torch.cumsum(x, dim=1), "norm": lambda x: x / x.norm(dim=1, keepdim=True),
    "max_dim": lambda x: x.max(dim=1).values.unsqueeze(1) * x,
}.items():
    _case(_name, regression(_fn))

_case("layer_norm", module_case(lambda: nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16)),
                                (4, 8)))
_case("batch_norm_1d", module_case(lambda: nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16)),
                                   (6, 8)))
_case("group_norm", module_case(lambda: nn.Sequential(nn.Conv2d(2, 8, 3), nn.GroupNorm(4, 8)),
                                (2, 2, 6, 6)))
_case("batch_norm_2d", module_case(lambda: nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4)),
                                   (3, 2, 6, 6)))

# --- data movement ----------------------------------------------------------------
for _name, _fn in {
    "reshape": lambda x: x.reshape(2, 2, 8).permute(2, 0, 1).reshape(4, 8),
    "transpose": lambda x: x.t().contiguous().view(4, 8) * x,
    "slice_step": lambda x: torch.cat([x[:, ::2], x[:, 1::2]], dim=1),
    "cat_stack": lambda x: torch.stack([x, 2 * x], dim=0).sum(0),
    "split_chunk": lambda x: torch.cat(list(reversed(x.chunk(4, dim=1))), dim=1),
    "flip_roll": lambda x: x.flip(0) + torch.roll(x, 3, dims=1),
    "pad": lambda x: F.pad(x, (1, 2))[:, 1:9] * F.pad(x, (-1, 1)),
    "repeat": lambda x: x.repeat(1, 2)[:, 3:11], "expand": lambda x: x[:, :1].expand(4, 8) * x,
    "index_select": lambda x: x.index_select(1, torch.tensor([3, 1, 0, 7, 2, 2, 5, 4])),
    "gather": lambda x: x.gather(1, torch.arange(8).flip(0).expand(4, 8).contiguous()),
    "tril": lambda x: torch.tril(x.reshape(4, 8)) + torch.triu(x, 2),
    "narrow_select": lambda x: x * x.narrow(1, 2, 1) + x[1],
    "masked_fill": lambda x: x.masked_fill(torch.eye(4, 8, dtype=torch.bool), 0.0),
}.items():
    _case(_name, regression(_fn))

# --- contractions -----------------------------------------------------------------
_case("matmul_batched", regression(
    lambda x: (x.view(4, 2, 4) @ x.view(4, 2, 4).transpose(1, 2)).reshape(4, 4), out=8))
_case("matmul_4d", regression(
    lambda x: (x.view(2, 2, 2, 4) @ x.view(2, 2, 4, 2)).reshape(4, 4)))
_case("linear_chain", module_case(
    lambda: nn.Sequential(nn.Linear(8, 12), nn.Tanh(), nn.Linear(12, 3)), (5, 8)))
for _name, _make, _shape in [
    ("conv2d", lambda: nn.Conv2d(3, 4, 3), (2, 3, 7, 7)),
    ("conv2d_stride_pad", lambda: nn.Conv2d(3, 4, 3, stride=2, padding=1), (2, 3, 9, 9)),
    ("conv2d_stride_uneven", lambda: nn.Conv2d(2, 3, 4, stride=3, padding=2), (2, 2, 10, 11)),
    ("conv2d_dilation", lambda: nn.Conv2d(2, 3, 3, dilation=2, padding=2), (2, 2, 8, 8)),
    ("conv2d_groups", lambda: nn.Conv2d(4, 6, 3, groups=2, padding=1), (2, 4, 6, 6)),
    ("conv2d_depthwise", lambda: nn.Conv2d(4, 4, 3, groups=4, padding=1, stride=2),
     (2, 4, 8, 8)),
    ("conv2d_depthwise_multiplier", lambda: nn.Conv2d(3, 6, 3, groups=3), (2, 3, 6, 6)),
    ("conv2d_1x1_nobias", lambda: nn.Conv2d(4, 8, 1, bias=False), (2, 4, 5, 5)),
    ("conv1d", lambda: nn.Conv1d(3, 5, 3, stride=2, padding=1), (2, 3, 11)),
    ("conv_transpose2d", lambda: nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1,
                                                    output_padding=1), (2, 4, 5, 5)),
]:
    _case(_name, module_case(_make, _shape))

# --- pooling ----------------------------------------------------------------------
for _name, _make, _shape in [
    ("max_pool_2x2", lambda: nn.Sequential(nn.Conv2d(2, 3, 3), nn.MaxPool2d(2)), (2, 2, 10, 10)),
    ("max_pool_3x3_s2_p1", lambda: nn.Sequential(nn.Conv2d(2, 3, 3), nn.MaxPool2d(3, 2, 1)),
     (2, 2, 11, 11)),
    ("max_pool_ceil", lambda: nn.Sequential(nn.Conv2d(2, 3, 3), nn.MaxPool2d(2, ceil_mode=True)),
     (2, 2, 9, 9)),
    ("avg_pool", lambda: nn.Sequential(nn.Conv2d(2, 3, 3), nn.AvgPool2d(3, 2, 1)),
     (2, 2, 11, 11)),
    ("avg_pool_exclude_pad", lambda: nn.Sequential(
        nn.Conv2d(2, 3, 3), nn.AvgPool2d(3, 2, 1, count_include_pad=False)), (2, 2, 11, 11)),
    ("adaptive_avg_pool", lambda: nn.Sequential(nn.Conv2d(2, 3, 3), nn.AdaptiveAvgPool2d(2)),
     (2, 2, 10, 10)),
    ("max_pool1d", lambda: nn.Sequential(nn.Conv1d(2, 3, 3), nn.MaxPool1d(2)), (2, 2, 12)),
]:
    _case(_name, module_case(_make, _shape))

# --- embeddings and indexing --------------------------------------------------------


class EmbedSum(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 6, padding_idx=0)
        self.fc = nn.Linear(6, 3)

    def forward(self, ids):
        return self.fc(self.emb(ids).mean(dim=1))


_case("embedding_padding_idx", namespace(
    lambda: (torch.manual_seed(0), EmbedSum())[1],
    lambda: (torch.randint(0, 20, (4, 5)), torch.randint(0, 3, (4,))),
    lambda p: torch.optim.SGD(p, lr=0.5)))

# --- losses -----------------------------------------------------------------------
_cls = lambda: nn.Sequential(nn.Linear(8, 5))  # noqa: E731
for _name, _loss, _target in [
    ("cross_entropy_weighted", lambda o, t: F.cross_entropy(
        o, t, weight=torch.tensor([1.0, 2.0, 0.5, 1.5, 1.0])), "cls"),
    ("nll_loss", lambda o, t: F.nll_loss(F.log_softmax(o, 1), t), "cls"),
    ("bce_with_logits", F.binary_cross_entropy_with_logits, "bin"),
    ("l1", F.l1_loss, "reg"), ("smooth_l1", F.smooth_l1_loss, "reg"),
    ("huber", lambda o, t: F.huber_loss(o, t, delta=0.5), "reg"),
]:
    def _batch(kind=_target):
        x = torch.randn(6, 8)
        if kind == "cls":
            return x, torch.randint(0, 5, (6,))
        if kind == "bin":
            return x, torch.randint(0, 2, (6, 5)).float()
        return x, torch.randn(6, 5)
    _case(_name, namespace(lambda: (torch.manual_seed(0), _cls())[1], _batch,
                           lambda p: torch.optim.SGD(p, lr=0.1), (lambda f=_loss: f)))

# --- optimizers -------------------------------------------------------------------
for _name, _opt, _atol in [
    ("sgd_nesterov_wd", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True,
                                                  weight_decay=0.01), PARAM_ATOL),
    ("sgd_dampening", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.8, dampening=0.3),
     PARAM_ATOL),
    ("sgd_maximize", lambda p: torch.optim.SGD(p, lr=0.01, maximize=True), PARAM_ATOL),
    # Adam moves a parameter by about lr whatever its gradient's size: one
    # whose gradient is at rounding-noise level moves by +-lr either way
    # (IMPORT-FACTS), so parameters are compared at lr's scale.
    ("adam_amsgrad", lambda p: torch.optim.Adam(p, lr=1e-3, amsgrad=True, weight_decay=0.01),
     3e-3),
    ("adamw", lambda p: torch.optim.AdamW(p, lr=1e-3, betas=(0.8, 0.99), eps=1e-6), 3e-3),
]:
    _case(_name, namespace(lambda: (torch.manual_seed(0), nn.Sequential(
        nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)))[1],
        lambda: (torch.randn(6, 8), torch.randint(0, 4, (6,))), _opt), steps=4, param_atol=_atol)


if __name__ == "__main__":
    unittest.main()
