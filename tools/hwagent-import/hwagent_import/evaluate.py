"""Evaluate a checkpoint hwagent-run wrote, in PyTorch, on the samples it
held out: the round trip's last step.

    hwagent-import evaluate model.py trained.safetensors \\
        --data digits.npz --val-split 0.2

loads the parameters into the file's nn.Module (hwagent_import.load_checkpoint),
switches it to eval mode and prints its loss and accuracy on the held-out
samples of hwagent-run's split (same --seed), batch by batch as the model's
example batch, the last batch included.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np
import torch

from .api import resolve_loss
from .cli import load_user_file
from .data import split
from .errors import ImportError_
from .tensors import load_checkpoint


def evaluate(model_file: str, checkpoint: str, data: str, val_split: float, seed: int = 1,
             names: list[str] | None = None) -> dict:
    user = load_user_file(model_file)
    torch.manual_seed(0)
    model = user.model()
    torch.manual_seed(0)
    x_ex, y_ex = user.example_batch()
    inputs_ex = (x_ex,) if isinstance(x_ex, torch.Tensor) else tuple(x_ex)
    load_checkpoint(model, checkpoint)
    model.eval()
    loss_fn, _ = resolve_loss(user.loss_fn() if getattr(user, "loss_fn", None) else None)
    arrays = np.load(data)
    if names is None:
        from .capture import input_names
        names = input_names(model, len(inputs_ex))
        names.append("y" if "y" not in names else "target")
    missing = [n for n in names if n not in arrays.files]
    if missing:
        raise ImportError_(f"{data} has no array {missing[0]!r} (it has {arrays.files})")
    n = arrays[names[0]].shape[0]
    if val_split > 0:
        _, held = split(n, val_split, seed)
    else:
        held = list(range(n))
    batch = inputs_ex[0].shape[0]
    total_loss, correct, count = 0.0, 0.0, 0
    with torch.no_grad():
        for start in range(0, len(held), batch):
            idx = held[start:start + batch]
            xs = []
            for k, ex in enumerate(inputs_ex):
                a = torch.from_numpy(np.ascontiguousarray(arrays[names[k]][idx]))
                xs.append(a.reshape((len(idx),) + tuple(ex.shape[1:])).to(ex.dtype))
            y = torch.from_numpy(np.ascontiguousarray(arrays[names[-1]][idx])).to(y_ex.dtype)
            out = model(*xs)
            total_loss += float(loss_fn(out, y)) * len(idx)
            if out.dim() == 2 and y.dim() == 1:
                correct += float((out.argmax(1) == y).sum())
            count += len(idx)
    return {"samples": count, "loss": total_loss / max(count, 1),
            "accuracy": correct / max(count, 1)}


def main(argv=None, prog="python3 -m hwagent_import.evaluate") -> int:
    p = argparse.ArgumentParser(prog=prog,
                                description=__doc__.split("\n\n")[0])
    p.add_argument("model_file")
    p.add_argument("checkpoint")
    p.add_argument("--data", required=True)
    p.add_argument("--val-split", type=float, default=0.0,
                   help="evaluate the samples hwagent-run held out with this --val-split "
                        "(0: every sample)")
    p.add_argument("--seed", type=int, default=1, help="hwagent-run's --seed (default 1)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    try:
        r = evaluate(args.model_file, args.checkpoint, args.data, args.val_split, args.seed)
    except ImportError_ as e:
        print(f"hwagent_import.evaluate: error: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(r))
    else:
        print(f"PyTorch eval of {args.checkpoint}: loss {r['loss']:.4f}  accuracy "
              f"{100 * r['accuracy']:.2f}%  ({r['samples']} samples)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
