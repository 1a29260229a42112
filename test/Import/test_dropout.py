"""Dropout in a compiled step: a seed-free counter-based generator
(lowering/misc.py) cannot reproduce PyTorch's stream, so its statistics are
tested instead: the keep rate, independence across steps and across two
dropout sites, and that the same counter (a resumed run) draws the same masks."""

from __future__ import annotations

import json
import math
import os
import subprocess
import unittest

import numpy as np
import torch
import torch.nn as nn

from harness import RUN, WorkDir
from hwagent_import import import_model

P = 0.3
WIDTH = 4096
STEPS = 20


class Keep(nn.Module):
    """mean(dropout(w * x)) with x = 1 and w = 1: the step's loss is the
    kept fraction times 1/(1-p); with `twice`, mean(d1(y) * d2(y)) tells
    whether two sites draw independent masks."""

    def __init__(self, twice=False):
        super().__init__()
        self.w = nn.Parameter(torch.ones(()))
        self.drop1 = nn.Dropout(P)
        self.drop2 = nn.Dropout(P)
        self.twice = twice

    def forward(self, x):
        y = self.w * x
        if self.twice:
            return self.drop1(y) * self.drop2(y)
        return self.drop1(y)


def mean_loss(out, target):
    return out.mean() + 0.0 * target.sum()


class Dropout(WorkDir):
    def losses(self, twice, tag, x=None):
        """The per-step losses over STEPS batches of `x` (default ones)."""
        out = os.path.join(self.work, f"import-{tag}")
        model = Keep(twice)
        batch = (torch.ones(1, WIDTH), torch.zeros(1))
        import_model(model, batch, out, loss=mean_loss,
                     optimizer=torch.optim.SGD(model.parameters(), lr=0.0))
        npz = os.path.join(self.work, "data.npz")
        rows = np.ones(WIDTH, np.float32) if x is None else x
        np.savez(npz, x=np.tile(rows, (STEPS, 1)), y=np.zeros(STEPS, np.float32))
        log = os.path.join(self.work, f"{tag}.jsonl")
        p = subprocess.run([RUN, os.path.join(out, "train_step.mlir"), "--data", npz,
                            "--shuffle=false", "--init", os.path.join(out, "init.safetensors"),
                            "--steps", str(STEPS), "--log", log, "--backend", "cpu"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(log) as f:
            return [json.loads(l)["loss"] for l in f
                    if '"type": "step"' in l or '"type":"step"' in l]

    def test_keep_rate_and_steps_differ(self):
        losses = self.losses(False, "one")
        self.assertEqual(len(losses), STEPS)
        kept = [l * (1 - P) for l in losses]
        sigma = math.sqrt(P * (1 - P) / WIDTH)
        for k in kept:
            self.assertLess(abs(k - (1 - P)), 5 * sigma, kept)
        self.assertLess(abs(sum(kept) / STEPS - (1 - P)), 5 * sigma / math.sqrt(STEPS))
        # With x = 1 the loss counts the kept elements, and two masks keep
        # the same count often (about 1 in 100 pairs): x_i = 1 + i/WIDTH
        # makes the loss tell the masks themselves apart.
        spread = 1 + np.arange(WIDTH, dtype=np.float32) / WIDTH
        distinct = self.losses(False, "spread", spread)
        self.assertEqual(len(set(distinct)), STEPS, "every step draws a new mask")
        # The same counters again (a resumed run): the same masks.
        self.assertEqual(distinct, self.losses(False, "again", spread))

    def test_two_sites_are_independent(self):
        losses = self.losses(True, "two")
        # E[d1 * d2] = 1 when the masks are independent, 1 / (1 - p) when equal.
        mean = sum(losses) / STEPS
        self.assertLess(abs(mean - 1.0), 0.05, losses)


if __name__ == "__main__":
    unittest.main()
