"""Clear errors before any file is written: each names what is wrong, where
in the user's code, and what to change."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import unittest

from harness import IMPORT, WorkDir

HEADER = """
import torch
import torch.nn as nn
import torch.nn.functional as F
"""


class Errors(WorkDir):
    def run_import(self, body: str, *extra):
        path = os.path.join(self.work, "model.py")
        with open(path, "w") as f:
            f.write(HEADER + textwrap.dedent(body))
        out = os.path.join(self.work, "out")
        p = subprocess.run([IMPORT, path, "-o", out, *extra], capture_output=True, text=True)
        return p, out, path

    def assert_refused(self, body, *phrases, extra=()):
        p, out, path = self.run_import(body, *extra)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("hwagent-import: error:", p.stderr)
        for phrase in phrases:
            self.assertIn(phrase, p.stderr)
        self.assertFalse(os.path.exists(out), "nothing is written when the import fails")
        leftovers = [f for f in os.listdir(self.work) if f.startswith(".hwagent-import-")]
        self.assertEqual(leftovers, [])
        return p.stderr

    def test_unsupported_op_names_op_and_line(self):
        err = self.assert_refused("""
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)
                def forward(self, x):
                    y = self.fc(x)
                    return torch.sort(y, dim=1).values
            def model(): return M()
            def example_batch(): return torch.randn(2, 8), torch.randint(0, 4, (2,))
            """, "unsupported op aten.sort", "model.py:12", "torch.sort(y, dim=1)")
        self.assertIn("forward", err)

    def test_data_dependent_control_flow(self):
        self.assert_refused("""
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)
                def forward(self, x):
                    y = self.fc(x)
                    if y.sum() > 0:
                        return y * 2
                    return y
            def model(): return M()
            def example_batch(): return torch.randn(2, 8), torch.randint(0, 4, (2,))
            """, "data-dependent control flow", "model.py:12", "torch.where")

    def test_dynamic_shape_nonzero(self):
        self.assert_refused("""
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)
                def forward(self, x):
                    y = self.fc(x)
                    return y + torch.nonzero(y > 0).sum()
            def model(): return M()
            def example_batch(): return torch.randn(2, 8), torch.randint(0, 4, (2,))
            """, "aten.nonzero", "depends on the data", "model.py:12")

    def test_boolean_mask_indexing(self):
        self.assert_refused("""
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)
                def forward(self, x):
                    y = self.fc(x)
                    return y[y > 0].sum() + y.sum(1)
            def model(): return M()
            def example_batch(): return torch.randn(2, 8), torch.randn(2)
            """, "boolean-mask indexing", "model.py:12", "torch.where", extra=("--loss", "mse"))

    def test_in_place_on_input(self):
        self.assert_refused("""
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)
                def forward(self, x):
                    x.mul_(2)
                    return self.fc(x)
            def model(): return M()
            def example_batch(): return torch.randn(2, 8), torch.randint(0, 4, (2,))
            """, "modifies its input 'x' in place", "model.py:11", "out-of-place")

    def test_forward_returns_tuple(self):
        self.assert_refused("""
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8, 4)
                def forward(self, x):
                    y = self.fc(x)
                    return y, y.sum()
            def model(): return M()
            def example_batch(): return torch.randn(2, 8), torch.randint(0, 4, (2,))
            """, "the loss cannot take what forward() returns", "loss_fn")

    def test_missing_factory(self):
        self.assert_refused("""
            def example_batch(): return torch.randn(2, 8), torch.randint(0, 4, (2,))
            """, "defines no model()")

    def test_model_not_a_module(self):
        self.assert_refused("""
            def model(): return 3
            def example_batch(): return torch.randn(2, 8), torch.randint(0, 4, (2,))
            """, "must return a torch.nn.Module")

    def test_batch_sizes_differ(self):
        self.assert_refused("""
            def model(): return nn.Linear(8, 4)
            def example_batch(): return torch.randn(2, 8), torch.randint(0, 4, (3,))
            """, "holds one batch")

    def test_user_file_raises(self):
        self.assert_refused("""
            def model(): return nn.Linear(8, 4)
            def example_batch(): raise ValueError("no data here")
            """, "example_batch() raised ValueError: no data here", "model.py:7")

    def test_unknown_loss(self):
        self.assert_refused("""
            def model(): return nn.Linear(8, 4)
            def example_batch(): return torch.randn(2, 8), torch.randint(0, 4, (2,))
            """, "unknown loss 'hinge'", extra=("--loss", "hinge"))

    def test_unwritable_output(self):
        path = os.path.join(self.work, "model.py")
        with open(path, "w") as f:
            f.write(HEADER + "def model(): return nn.Linear(8, 4)\n"
                    "def example_batch(): return torch.randn(2, 8), torch.randint(0, 4, (2,))\n")
        blocker = os.path.join(self.work, "file")
        open(blocker, "w").close()
        p = subprocess.run([IMPORT, path, "-o", os.path.join(blocker, "out")],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("cannot", p.stderr)


if __name__ == "__main__":
    unittest.main()
