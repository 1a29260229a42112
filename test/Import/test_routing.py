"""Imported steps route as hand-written ones do: the bundled MobileNet-style
CNN imported from PyTorch places like examples/cnn_train_step.mlir; the zoo
and torchvision models partition; tiny steps and recurrences stay on the
CPU (target apple-m4, ANE and GPU times simulated)."""

from __future__ import annotations

import json
import os
import subprocess
import unittest

from harness import BIN, ZOO, WorkDir

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OPT = os.path.join(BIN, "hwagent-opt")


def partition(test, path, work, tag):
    report = os.path.join(work, f"{tag}.json")
    p = subprocess.run([OPT, path, f"--partition-backends=summary=true report={report}",
                        "-o", os.path.devnull], capture_output=True, text=True)
    test.assertEqual(p.returncode, 0, p.stderr[-2000:])
    with open(report) as f:
        fns = {fn["name"]: fn for fn in json.load(f)["functions"]}
    return fns["train_step"], p.stderr


def flops_share(fn, backend):
    regions = {r["id"]: r for r in fn["regions"]}
    total = sum(r.get("features", {}).get("flops", 0) for r in regions.values()) or 1
    on = sum(regions[i].get("features", {}).get("flops", 0)
             for p in fn["programs"] if p["backend"] == backend for i in p["regions"])
    return on / total


class Routing(WorkDir):
    def imported(self, name):
        out = os.path.join(self.work, name)
        p = subprocess.run([os.path.join(BIN, "hwagent-import"), os.path.join(ZOO, f"{name}.py"),
                            "-o", out, "-q"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return os.path.join(out, "train_step.mlir")

    def test_imported_cnn_routes_like_the_hand_written_one(self):
        ours, _ = partition(self, self.imported("cnn_bundled"), self.work, "imported")
        theirs, _ = partition(self, os.path.join(ROOT, "examples", "cnn_train_step.mlir"),
                              self.work, "hand")
        a, b = ours["step_time"]["optimal"], theirs["step_time"]["optimal"]
        self.assertLess(abs(a - b), 0.10 * b, f"imported {a} s vs hand-written {b} s")
        share_ours, share_theirs = flops_share(ours, "ane"), flops_share(theirs, "ane")
        print(f"optimal step (simulated): imported {a * 1e3:.2f} ms, hand-written "
              f"{b * 1e3:.2f} ms; ANE share of FLOPs {share_ours:.2f} vs {share_theirs:.2f}")
        self.assertGreater(share_ours, share_theirs - 0.15)
        self.assertGreater(share_ours, 0.3, "the small CNN goes to the ANE")

    def test_tiny_and_recurrent_steps_stay_on_the_cpu(self):
        for name in ("mlp", "lstm", "gpt"):
            fn, summary = partition(self, self.imported(name), self.work, name)
            backends = {p["backend"] for p in fn["programs"]}
            self.assertEqual(backends, {"cpu"}, f"{name}: {summary[-1500:]}")

    def test_every_zoo_model_partitions(self):
        for name in ("lenet", "bn_cnn", "mbv2_block", "resnet18", "mobilenet_v2"):
            fn, summary = partition(self, self.imported(name), self.work, name)
            self.assertIn("predicted step time", summary)
            self.assertGreater(fn["step_time"]["optimal"], 0)


if __name__ == "__main__":
    unittest.main()
