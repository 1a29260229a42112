#!/usr/bin/env python3
"""scikit-learn's digits for hwagent: the dataset, initial parameters, the
PyTorch reference curve, and the comparison of a run against it.

    scripts/digits.py export --out DIR
        DIR/digits.npz (x: float32 [1797, 64] in [0, 1], y: int64 [1797])
        and DIR/digits_{mlp,cnn}_init.safetensors (seeded, by name).
        Needs python3-numpy and python3-sklearn (load_digits reads the copy
        the package ships; nothing is downloaded).
    scripts/digits.py reference --model mlp|cnn --steps N --data DIR --out F
        Trains the same model in PyTorch 1.13 from the same parameters on the
        same batches (hwagent's documented order, docs/training.md) with
        plain SGD, and writes its per-step losses to F (JSON). Run with
        Debian's /usr/bin/python3 (python3-torch); never a test dependency.
    scripts/digits.py compare --log run.jsonl --reference F [--rtol 1e-4]
        Fails unless every step of the run's JSON Lines log has the
        reference's loss within --rtol (relative).

Models and hyper-parameters match scripts/gen_workloads.py's digits_mlp and
digits_cnn.
"""
import argparse
import json
import os
import struct
import sys

MODELS = {
    # name: (lr, batch, [(param, shape)...])
    "mlp": (0.2, 32, [("w1", [64, 64]), ("b1", [64]), ("w2", [64, 10]), ("b2", [10])]),
    "cnn": (0.05, 32, [("w1", [8, 1, 3, 3]), ("w2", [16, 8, 3, 3]), ("wf", [1024, 10]), ("bf", [10])]),
}
SPLIT = 0.2
SEED = 1
MASK = (1 << 64) - 1


def permutation(n, seed):
    """hwagent's permutation: Fisher-Yates driven by splitmix64."""
    p = list(range(n))
    state = seed & MASK

    def nxt():
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)
    for i in range(n - 1, 0, -1):
        j = nxt() % (i + 1)
        p[i], p[j] = p[j], p[i]
    return p


def batches(n, batch, seed, split, steps):
    """The sample indices of each training step, as hwagent-run visits them."""
    held = int(split * n)
    p = permutation(n, seed)
    train = sorted(p[:n - held])
    per_epoch = len(train) // batch
    for step in range(steps):
        epoch, b = divmod(step, per_epoch)
        order = [train[i] for i in permutation(len(train), seed + 1 + epoch)]
        yield order[b * batch:(b + 1) * batch]


def write_safetensors(path, tensors):
    """tensors: [(name, float32 numpy array)]; the safetensors layout."""
    header, offset, blobs = {}, 0, []
    for name, array in tensors:
        data = array.astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path):
    import numpy as np
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + b:8 + n + e], dtype="<f4").reshape(info["shape"]).copy()
    return out


def export(args):
    import numpy as np
    from sklearn.datasets import load_digits
    digits = load_digits()
    os.makedirs(args.out, exist_ok=True)
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    np.savez(os.path.join(args.out, "digits.npz"), x=x, y=y)
    rng = np.random.RandomState(args.seed)
    for model, (_, _, params) in MODELS.items():
        tensors = []
        for name, shape in params:
            fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
            if len(shape) == 1:
                tensors.append((name, np.zeros(shape, np.float32)))
            else:
                bound = np.sqrt(6.0 / fan_in)  # He-uniform for relu layers
                tensors.append((name, rng.uniform(-bound, bound, shape).astype(np.float32)))
        write_safetensors(os.path.join(args.out, f"digits_{model}_init.safetensors"), tensors)
    print(f"{args.out}/digits.npz: {x.shape[0]} samples of {x.shape[1]} values, 10 classes")


def reference(args):
    import numpy as np
    import torch
    torch.set_num_threads(1)
    lr, batch, params = MODELS[args.model]
    data = np.load(os.path.join(args.data, "digits.npz"))
    x_all, y_all = torch.from_numpy(data["x"]), torch.from_numpy(data["y"])
    init = read_safetensors(os.path.join(args.data, f"digits_{args.model}_init.safetensors"))
    p = {name: torch.tensor(init[name], requires_grad=True) for name, _ in params}

    def forward(x):
        if args.model == "mlp":
            h = torch.relu(x @ p["w1"] + p["b1"])
            return h @ p["w2"] + p["b2"]
        x = x.reshape(-1, 1, 8, 8)
        h = torch.relu(torch.nn.functional.conv2d(x, p["w1"], padding=1))
        h = torch.relu(torch.nn.functional.conv2d(h, p["w2"], padding=1))
        return h.reshape(h.shape[0], -1) @ p["wf"] + p["bf"]
    losses = []
    for idx in batches(x_all.shape[0], batch, SEED, SPLIT, args.steps):
        idx = torch.tensor(idx)
        loss = torch.nn.functional.cross_entropy(forward(x_all[idx]), y_all[idx])
        for t in p.values():
            t.grad = None
        loss.backward()
        with torch.no_grad():
            for t in p.values():
                t -= lr * t.grad
        losses.append(float(loss))
    with open(args.out, "w") as f:
        json.dump({"model": args.model, "framework": f"torch {torch.__version__}", "lr": lr, "batch": batch,
                   "seed": SEED, "split": SPLIT, "losses": losses}, f, indent=0)
    print(f"{args.out}: {len(losses)} steps, loss {losses[0]:.5f} -> {losses[-1]:.5f}")


def compare(args):
    with open(args.reference) as f:
        ref = json.load(f)["losses"]
    steps = []
    with open(args.log) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") == "step":
                steps.append((record["step"], record["loss"]))
    if len(steps) < args.min_steps:
        print(f"error: the run has {len(steps)} steps, fewer than {args.min_steps}")
        return 1
    worst = (0.0, -1)
    for step, loss in steps:
        if step >= len(ref):
            break
        if loss is None:
            print(f"error: step {step}: the loss is not finite")
            return 1
        rel = abs(loss - ref[step]) / max(abs(ref[step]), 1e-30)
        worst = max(worst, (rel, step))
        if rel > args.rtol:
            print(f"error: step {step}: loss {loss!r} vs reference {ref[step]!r} (relative {rel:.2e} > {args.rtol})")
            return 1
    print(f"{len(steps)} steps agree with {args.reference} within {args.rtol} "
          f"(worst relative difference {worst[0]:.2e} at step {worst[1]})")
    return 0


def accuracy(args):
    """The last evaluation record of a run's log must reach --min."""
    last = None
    with open(args.log) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") == "eval":
                last = record
    if last is None:
        print("error: the log has no evaluation record")
        return 1
    acc = last.get("val_accuracy")
    if acc is None or acc < args.min:
        print(f"error: validation accuracy {acc} after epoch {last['epoch']:.0f} is below {args.min}")
        return 1
    print(f"validation accuracy {100 * acc:.2f}% after epoch {last['epoch']:.0f} (>= {100 * args.min:.0f}%)")
    return 0


def corrupt(args):
    """Writes bad variants of DIR/digits.npz for the bad-input tests."""
    import numpy as np
    d = np.load(os.path.join(args.dir, "digits.npz"))
    x, y = d["x"], d["y"]
    out = lambda name: os.path.join(args.dir, name)
    np.savez(out("f64.npz"), x=x.astype(np.float64), y=y)
    np.savez(out("narrow.npz"), x=x[:, :60].copy(), y=y)
    bad = x.copy()
    bad[5, 3] = np.nan
    np.savez(out("nan.npz"), x=bad, y=y)
    labels = y.copy()
    labels[7] = 12
    np.savez(out("labels.npz"), x=x, y=labels)
    np.savez(out("small.npz"), x=x[:10].copy(), y=y[:10].copy())
    np.savez(out("xonly.npz"), x=x)
    np.savez(out("unnamed.npz"), a=x)
    with open(out("digits.npz"), "rb") as f:
        raw = f.read()
    with open(out("truncated.npz"), "wb") as f:
        f.write(raw[:len(raw) // 2])
    init = read_safetensors(out("digits_mlp_init.safetensors"))
    write_safetensors(out("huge.safetensors"), [(k, v * 1e30) for k, v in init.items()])
    write_safetensors(out("nan.safetensors"), [(k, v * np.nan) for k, v in init.items()])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export")
    e.add_argument("--out", required=True)
    e.add_argument("--seed", type=int, default=0)
    r = sub.add_parser("reference")
    r.add_argument("--model", choices=sorted(MODELS), required=True)
    r.add_argument("--steps", type=int, default=200)
    r.add_argument("--data", required=True)
    r.add_argument("--out", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--log", required=True)
    c.add_argument("--reference", required=True)
    c.add_argument("--rtol", type=float, default=1e-4)
    c.add_argument("--min-steps", type=int, default=200)
    a = sub.add_parser("accuracy")
    a.add_argument("--log", required=True)
    a.add_argument("--min", type=float, default=0.95)
    k = sub.add_parser("corrupt")
    k.add_argument("--dir", required=True)
    args = parser.parse_args()
    return {"export": export, "reference": reference, "compare": compare, "accuracy": accuracy,
            "corrupt": corrupt}[args.command](args) or 0


if __name__ == "__main__":
    sys.exit(main())
