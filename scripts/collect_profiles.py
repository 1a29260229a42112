#!/usr/bin/env python3
"""Measures profile databases on this machine's CPU and trains the learned
cost correction on them (docs/cost-model.md "Learned correction").

For each training step, `hwagent-run STEP --target host --backend cpu
--cpu-threads 1 --steps N --print-every 0 --profile-out OUT/NAME.profile.json` writes a
version 2 profile (every region measured on the CPU, with its analytic
prediction and features). Steps: the bundled examples (examples/*.mlir, the
full transformer layer left out: 2.6 TFLOP a step), the `--small` workloads
of scripts/gen_workloads.py, the PyTorch zoo and digits CNN through
hwagent-import (torchvision's ResNet-18 and MobileNetV2 among them), and
the torch-mlir CNNs of ../shared/models, which hwagent-run leaves out (they
are forward passes, not training steps; it says so). Then `hwagent-learn OUT/*.profile.json -o OUT/learned-host.json`
prints the leave-one-model-out table (each step held out in turn).

Run on demand, not a test (timings, minutes on a 2-core VM):

    scripts/collect_profiles.py [--build build] [--out build/profiles]
                                [--steps 40] [--only NAME ...]
"""
import argparse
import glob
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZOO = ["mlp", "lenet", "bn_cnn", "mbv2_block", "lstm", "gpt", "cnn_bundled",
       "resnet18", "mobilenet_v2"]
TORCH_MLIR = ["mobilenet_v2_linalg", "resnet18_linalg"]


def bundled_and_generated(out):
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "examples", "*_train_step.mlir"))):
        name = os.path.basename(path)[:-len("_train_step.mlir")]
        if name != "transformer":
            found.append(("bundled:" + name, path, None))
    small = os.path.join(out, "small")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_workloads.py"),
                    "--small", "--out", small], check=True, capture_output=True)
    for path in sorted(glob.glob(os.path.join(small, "*_train_step.mlir"))):
        name = os.path.basename(path)[:-len("_train_step.mlir")]
        if not name.startswith("digits"):  # the bundled digits steps' shapes
            found.append(("generated:" + name, path, None))
    return found


def imported(build, out):
    found = []
    sources = [(n, os.path.join(ROOT, "test", "Import", "zoo", n + ".py")) for n in ZOO]
    sources.append(("digits_cnn", os.path.join(ROOT, "examples", "pytorch", "digits_cnn.py")))
    for name, source in sources:
        directory = os.path.join(out, "import", name)
        subprocess.run([os.path.join(build, "bin", "hwagent-import"), source,
                        "-o", directory], check=True, capture_output=True)
        found.append(("import:" + name, os.path.join(directory, "train_step.mlir"),
                      os.path.join(directory, "init.safetensors")))
    return found


def torch_mlir():
    models = os.path.join(ROOT, "..", "shared", "models")
    return [("torch-mlir:" + n, os.path.join(models, n + ".mlir"), None)
            for n in TORCH_MLIR if os.path.exists(os.path.join(models, n + ".mlir"))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=None, help="default: BUILD/profiles")
    # The profile averages every execution, the first (cold: kernel set-up,
    # first-touch pages) included: short runs overstate a step's time.
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args()
    out = args.out or os.path.join(args.build, "profiles")
    os.makedirs(out, exist_ok=True)
    steps = bundled_and_generated(out) + imported(args.build, out) + torch_mlir()
    profiles = []
    for name, step, init in steps:
        if args.only and name not in args.only:
            continue
        profile = os.path.join(out, name.replace(":", "-") + ".profile.json")
        command = [os.path.join(args.build, "bin", "hwagent-run"), step, "--target", "host",
                   "--backend", "cpu", "--cpu-threads", "1", "--steps", str(args.steps),
                   "--print-every", "0", "--profile-out", profile]
        if init and os.path.exists(init):
            command += ["--init", init]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            print(f"{name}: hwagent-run failed, left out: "
                  f"{result.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            continue
        print(f"{name}: {profile}", file=sys.stderr)
        profiles.append(profile)
    model = os.path.join(out, "learned-host.json")
    subprocess.run([os.path.join(args.build, "bin", "hwagent-learn"), *profiles,
                    "-o", model], check=True)
    print(f"model: {model}", file=sys.stderr)


if __name__ == "__main__":
    main()
