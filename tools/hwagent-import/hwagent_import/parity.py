"""Parity with PyTorch: the same model, init, batches and optimizer, trained
by PyTorch eager (nn.Module + torch.optim) and by hwagent-run.

Used by the tests (test/Import) and the benchmark (bench/compare_pytorch.py
--imported); also a user's check that an import is faithful:

    hwagent-import parity model.py --steps 5

Batches come from the model file's example_batch() under seeds 1000 + i, so
both sides see the same data; hwagent-run reads them in order from one .npz
(`--shuffle=false`).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

import numpy as np
import torch

from .api import import_model, resolve_loss
from .cli import load_user_file
from .tensors import load_checkpoint, read_safetensors


@dataclass
class Curve:
    losses: list[float]
    state: dict = field(default_factory=dict)  # final tensors by name
    eval_loss: float | None = None
    accuracy: float | None = None
    seconds_per_step: float | None = None


def user_parts(user, seed: int = 0):
    """(model, example batch, loss, optimizer factory) as hwagent-import
    builds them from a model file."""
    torch.manual_seed(seed)
    model = user.model()
    torch.manual_seed(seed)
    batch = user.example_batch()
    loss = user.loss_fn() if getattr(user, "loss_fn", None) else None
    opt_fn = getattr(user, "optimizer", None)
    return model, batch, loss, opt_fn


def make_batches(user, steps: int, seed: int = 1000):
    out = []
    for i in range(steps):
        torch.manual_seed(seed + i)
        x, y = user.example_batch()
        xs = (x,) if isinstance(x, torch.Tensor) else tuple(x)
        out.append((xs, y))
    return out


def write_npz(path: str, names: list[str], batches) -> None:
    arrays = {}
    for k, name in enumerate(names[:-1]):
        arrays[name] = torch.cat([b[0][k] for b in batches]).numpy()
    arrays[names[-1]] = torch.cat([b[1] for b in batches]).numpy()
    np.savez(path, **arrays)


def eager(user, init_path: str, batches, seed: int = 0, dtype=None) -> Curve:
    """PyTorch eager training on `batches`; with dtype=torch.float64 the
    same in double precision: the reference that says how far float32 itself
    is from the exact result (an ill-conditioned model moves there too)."""
    model, _, loss, opt_fn = user_parts(user, seed)
    load_checkpoint(model, init_path)
    if dtype is not None:
        model = model.to(dtype)
    loss_fn, _ = resolve_loss(loss)
    opt = opt_fn(model.parameters()) if opt_fn else torch.optim.SGD(model.parameters(), lr=0.01)
    model.train()

    def cast(t):
        return t.to(dtype) if dtype is not None and t.is_floating_point() else t
    losses = []
    for xs, y in batches:
        opt.zero_grad()
        out = model(*(cast(x) for x in xs))
        l = loss_fn(out, cast(y))
        l.backward()
        opt.step()
        losses.append(float(l))
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    return Curve(losses, state)


def hwagent(run: str, out_dir: str, npz: str, steps: int, work: str, backend: str = "cpu",
            extra: list[str] | None = None) -> Curve:
    log = os.path.join(work, f"run-{backend}.jsonl")
    saved = os.path.join(work, f"trained-{backend}.safetensors")
    cmd = [run, os.path.join(out_dir, "train_step.mlir"), "--data", npz, "--shuffle=false",
           "--init", os.path.join(out_dir, "init.safetensors"), "--steps", str(steps),
           "--backend", backend, "--log", log, "--save", saved, "--progress", "lines",
           "--print-every", "1000000"] + (extra or [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"hwagent-run failed ({p.returncode}): {' '.join(cmd)}\n"
                           f"{p.stdout}\n{p.stderr}")
    losses, evals = [], []
    with open(log) as f:
        for line in f:
            r = json.loads(line)
            if r.get("type") == "step":
                losses.append(r["loss"])
            elif r.get("type") == "eval":
                evals.append(r)
    tensors, _ = read_safetensors(saved)
    c = Curve(losses, tensors)
    if evals:
        c.eval_loss = evals[-1].get("val_loss")
        c.accuracy = evals[-1].get("val_accuracy")
    return c


def max_relative(a: list[float], b: list[float]) -> float:
    worst = 0.0
    for x, y in zip(a, b):
        if math.isnan(x) or math.isnan(y):
            return float("inf")
        worst = max(worst, abs(x - y) / max(abs(y), 1e-12))
    return worst


def check(model_file: str, steps: int, run: str, work: str | None = None,
          backends=("cpu",)) -> dict:
    """Import a model file, train both ways, compare: a dict of figures."""
    user = load_user_file(model_file)
    return check_user(user, steps, run, work, backends,
                      os.path.splitext(os.path.basename(model_file))[0],
                      os.path.dirname(os.path.abspath(model_file)))


def check_user(user, steps: int, run: str, work: str | None = None, backends=("cpu",),
               name: str = "model", source_dir: str | None = None,
               reference64: bool = False) -> dict:
    """The same for the model-file contract given as an object; with
    `reference64` also PyTorch in float64 ("torch64_losses", "torch64_state")."""
    model, batch, loss, opt_fn = user_parts(user)
    opt = opt_fn(model.parameters()) if opt_fn else None
    tmp = work or tempfile.mkdtemp(prefix="hwagent-parity-")
    out_dir = os.path.join(tmp, "import")
    res = import_model(model, batch, out_dir, loss=loss, optimizer=opt, source_dir=source_dir,
                       model_name=name)
    batches = make_batches(user, steps)
    npz = os.path.join(tmp, "data.npz")
    write_npz(npz, res.manifest["data"], batches)
    ref = eager(user, os.path.join(out_dir, "init.safetensors"), batches)
    report = {"model": res.manifest["model"], "steps": steps, "torch_losses": ref.losses,
              "torch_state": ref.state, "out_dir": out_dir, "npz": npz,
              "manifest": res.manifest}
    if reference64:
        ref64 = eager(user, os.path.join(out_dir, "init.safetensors"), batches,
                      dtype=torch.float64)
        report["torch64_losses"] = ref64.losses
        report["torch64_state"] = ref64.state
    for backend in backends:
        cur = hwagent(run, out_dir, npz, steps, tmp, backend)
        report[backend] = {"losses": cur.losses, "state": cur.state,
                           "max_rel_loss": max_relative(cur.losses, ref.losses),
                           "max_abs_param": max(
                               (float((cur.state[k].double() - v.double()).abs().max())
                                for k, v in ref.state.items()
                                if k in cur.state and v.is_floating_point() and v.numel()),
                               default=0.0)}
    return report


def main(argv=None, prog="python3 -m hwagent_import.parity") -> int:
    p = argparse.ArgumentParser(prog=prog,
                                description="Train a model file both in PyTorch eager and with "
                                            "hwagent-run from the same init and batches; print "
                                            "the per-step losses and their largest relative "
                                            "difference.")
    p.add_argument("model_file")
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--hwagent-run", default=os.path.join(os.path.dirname(sys.argv[0]) or ".",
                                                         "hwagent-run"))
    p.add_argument("--backend", action="append", choices=["cpu", "ane", "gpu"])
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    report = check(args.model_file, args.steps, args.hwagent_run,
                   backends=tuple(args.backend or ["cpu"]))
    if args.json:
        slim = {k: v for k, v in report.items() if k not in ("torch_state", "manifest")}
        for b in args.backend or ["cpu"]:
            slim[b] = {k: v for k, v in report[b].items() if k != "state"}
        print(json.dumps(slim, indent=2))
    else:
        for b in args.backend or ["cpu"]:
            print(f"{report['model']} ({b}): max relative loss difference "
                  f"{report[b]['max_rel_loss']:.2e} over {args.steps} steps, "
                  f"largest parameter difference {report[b]['max_abs_param']:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
