"""hwagent-import: the command line.

    hwagent-import model.py -o DIR [--loss mse] [--optimizer adam --lr 1e-3] ...

`model.py` defines model() (the nn.Module), example_batch() ((inputs,
targets) at the batch shape) and optionally loss_fn() (returns a callable
loss(outputs, targets)) and optimizer(params) (a torch.optim optimizer).
Options replace what the file defines.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import traceback

from .errors import ImportError_


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hwagent-import",
        description="Import a PyTorch model as an hwagent training step: writes "
                    "DIR/train_step.mlir (@train_step and @eval_step), DIR/eval_step.mlir, "
                    "DIR/init.safetensors and DIR/manifest.json (docs/importer.md).",
        epilog="example: hwagent-import examples/pytorch/digits_cnn.py -o build/digits_import\n"
               "then:    hwagent-run build/digits_import/train_step.mlir --data digits.npz "
               "--init build/digits_import/init.safetensors --epochs 5 --save trained.safetensors\n"
               "back:    hwagent-import evaluate examples/pytorch/digits_cnn.py trained.safetensors "
               "--data digits.npz  (PyTorch's loss and accuracy of the checkpoint)\n"
               "parity:  hwagent-import parity model.py --steps 5  (train both ways, compare losses)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model_file", help="a Python file defining model() and example_batch()")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="the folder to write (created; files in it are replaced)")
    p.add_argument("--model", default="model", metavar="NAME",
                   help="the factory returning the nn.Module (default: model)")
    p.add_argument("--batch", default="example_batch", metavar="NAME",
                   help="the function returning (inputs, targets) (default: example_batch)")
    p.add_argument("--loss", metavar="NAME",
                   help="cross_entropy (default), nll, mse, l1, smooth_l1, huber, "
                        "bce_with_logits, or the name of a function in the file that returns "
                        "the loss callable (default: the file's loss_fn() when it has one)")
    p.add_argument("--optimizer", choices=["sgd", "adam", "adamw"],
                   help="replace the file's optimizer(params) (default: it, else SGD)")
    p.add_argument("--lr", type=float, help="learning rate (overrides the optimizer's)")
    p.add_argument("--momentum", type=float, help="SGD momentum")
    p.add_argument("--dampening", type=float, help="SGD dampening")
    p.add_argument("--nesterov", action="store_true", default=None, help="SGD Nesterov momentum")
    p.add_argument("--weight-decay", type=float, help="weight decay (AdamW: decoupled)")
    p.add_argument("--betas", type=_betas, metavar="B1,B2", help="Adam/AdamW betas")
    p.add_argument("--eps", type=float, help="Adam/AdamW epsilon")
    p.add_argument("--amsgrad", action="store_true", default=None, help="Adam/AdamW AMSGrad")
    p.add_argument("--loss-scale", type=float, default=1.0, metavar="S",
                   help="static loss scaling for fp16 backward programs (--backend ane): "
                        "differentiate loss x S, divide the gradients by S before the update; "
                        "a power of two (default 1: none)")
    p.add_argument("--seed", type=int, default=0,
                   help="torch.manual_seed before model() and example_batch() (default 0)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    return p


def _betas(text: str):
    try:
        b1, b2 = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected B1,B2 (e.g. 0.9,0.999), got '{text}'")
    return (b1, b2)


def load_user_file(path: str):
    if not os.path.isfile(path):
        raise ImportError_(f"{path}: no such file")
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location("hwagent_user_model", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as e:
        tb = traceback.extract_tb(e.__traceback__)
        frame = next((f for f in reversed(tb) if os.path.abspath(f.filename) ==
                      os.path.abspath(path)), None)
        where = f"{frame.filename}:{frame.lineno}: {(frame.line or '').strip()}" if frame else None
        raise ImportError_(f"{path} raised {type(e).__name__}: {e}", where) from e
    return module


def _get(module, name: str, path: str, required: bool):
    fn = getattr(module, name, None)
    if fn is None:
        if required:
            raise ImportError_(f"{path} defines no {name}()",
                               hint=f"define {name}() (or name another function with --"
                                    f"{'model' if name == 'model' else 'batch'})")
        return None
    if not callable(fn):
        raise ImportError_(f"{path}: {name} is not a function")
    return fn


def _call(fn, path: str, *args):
    try:
        return fn(*args)
    except ImportError_:
        raise
    except Exception as e:
        tb = traceback.extract_tb(e.__traceback__)
        frame = next((f for f in reversed(tb) if os.path.abspath(f.filename) ==
                      os.path.abspath(path)), None)
        where = f"{frame.filename}:{frame.lineno}: {(frame.line or '').strip()}" if frame else None
        raise ImportError_(f"{fn.__name__}() raised {type(e).__name__}: {e}", where) from e


def run(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        import torch
    except ImportError:  # pragma: no cover - depends on the machine
        print("hwagent-import: error: PyTorch is not installed for this Python "
              f"({sys.executable}); on Debian: apt-get install python3-torch", file=sys.stderr)
        return 1
    from .api import import_model
    path = args.model_file
    try:
        user = load_user_file(path)
        model_fn = _get(user, args.model, path, True)
        batch_fn = _get(user, args.batch, path, True)
        torch.manual_seed(args.seed)
        model = _call(model_fn, path)
        torch.manual_seed(args.seed)
        batch = _call(batch_fn, path)
        loss = None
        if args.loss:
            named = getattr(user, args.loss, None)
            loss = _call(named, path) if callable(named) else args.loss
        elif getattr(user, "loss_fn", None) is not None:
            loss = _call(user.loss_fn, path)
        optimizer = None
        if args.optimizer is None and getattr(user, "optimizer", None) is not None:
            if not isinstance(model, torch.nn.Module):
                raise ImportError_(f"{args.model}() must return a torch.nn.Module")
            optimizer = _call(user.optimizer, path, model.parameters())
        hyper = {"kind": args.optimizer} if args.optimizer else {}
        for key, value in (("lr", args.lr), ("momentum", args.momentum),
                           ("dampening", args.dampening), ("nesterov", args.nesterov),
                           ("weight_decay", args.weight_decay), ("betas", args.betas),
                           ("eps", args.eps), ("amsgrad", args.amsgrad)):
            if value is not None:
                hyper[key] = value
        result = import_model(model, batch, args.output, loss=loss, optimizer=optimizer,
                              optimizer_hyper=hyper,
                              source_dir=os.path.dirname(os.path.abspath(path)),
                              model_name=os.path.splitext(os.path.basename(path))[0],
                              loss_scale=args.loss_scale)
    except ImportError_ as e:
        print(f"hwagent-import: error: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        m = result.manifest
        params = sum(1 for s in m["state"] if s["kind"] == "parameter")
        ops = sum(m["mlir_ops"]["train_step"].values())
        print(f"imported {m['model']}: {params} parameters, {len(m['state'])} state tensors, "
              f"batch {m['batch_size']}, loss {m['loss']}, optimizer {m['optimizer']['kind']} "
              f"(lr {m['optimizer'].get('lr')}); @train_step {ops} ops, "
              f"in {m['import_seconds']:.2f} s")
        out = args.output
        print(f"wrote {out}/train_step.mlir, eval_step.mlir, init.safetensors, manifest.json")
        print(f"data arrays (in an .npz): {', '.join(m['data'])}")
        print(f"train: hwagent-run {out}/train_step.mlir --data DATA.npz "
              f"--init {out}/init.safetensors --epochs N --save trained.safetensors")
    return 0


SUBCOMMANDS = ("evaluate", "parity")


def main(argv=None) -> None:
    """`hwagent-import model.py -o DIR`, or `hwagent-import evaluate|parity ...`
    (the same as `python3 -m hwagent_import.evaluate|parity ...`)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in SUBCOMMANDS:
        if argv[0] == "evaluate":
            from . import evaluate as sub
        else:
            from . import parity as sub
        sys.exit(sub.main(argv[1:], prog=f"hwagent-import {argv[0]}"))
    sys.exit(run(argv))
