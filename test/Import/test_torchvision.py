"""torchvision's classification models (Debian python3-torchvision) import
at 32x32 and train with PyTorch's numerics: per-step losses within 1e-5."""

from __future__ import annotations

import os
import unittest

from harness import RUN, ZOO, WorkDir
from hwagent_import import parity
from hwagent_import.cli import load_user_file

STEPS = 3


class TorchVision(WorkDir):
    def check(self, name):
        user = load_user_file(os.path.join(ZOO, f"{name}.py"))
        r = parity.check_user(user, STEPS, RUN, self.work, ("cpu",), name, ZOO)
        for i, (a, b) in enumerate(zip(r["cpu"]["losses"], r["torch_losses"])):
            self.assertLessEqual(abs(a - b), 1e-5 * abs(b), f"{name} step {i}: {a} vs {b}")
        for k, v in r["torch_state"].items():
            if "running_mean" in k or "running_var" in k:
                got = r["cpu"]["state"][k]
                self.assertLessEqual(float((got - v).abs().max()),
                                     1e-5 + 1e-4 * float(v.abs().max()), k)
        print(f"{name}: max relative loss difference {r['cpu']['max_rel_loss']:.2e}")

    def test_resnet18(self):
        self.check("resnet18")

    def test_mobilenet_v2(self):
        self.check("mobilenet_v2")


if __name__ == "__main__":
    unittest.main()
