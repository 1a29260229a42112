"""The command-line contract: hwagent-import model.py -o DIR writes the four
files; options replace the file's loss and optimizer."""

from __future__ import annotations

import json
import os
import subprocess
import unittest

from harness import IMPORT, ZOO, WorkDir
from hwagent_import import read_safetensors


class Cli(WorkDir):
    def imp(self, *args):
        out = os.path.join(self.work, "out")
        p = subprocess.run([IMPORT, os.path.join(ZOO, "mlp.py"), "-o", out, *args],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "manifest.json")) as f:
            return out, json.load(f), p.stdout

    def test_writes_the_four_files(self):
        out, m, stdout = self.imp()
        self.assertEqual(sorted(os.listdir(out)),
                         ["eval_step.mlir", "init.safetensors", "manifest.json",
                          "train_step.mlir"])
        self.assertEqual(m["data"], ["input", "y"])
        self.assertEqual(m["batch_size"], 32)
        self.assertEqual(m["optimizer"]["kind"], "sgd")
        self.assertEqual(m["optimizer"]["momentum"], 0.9)
        train = open(os.path.join(out, "train_step.mlir")).read()
        self.assertIn("func.func @train_step(", train)
        self.assertIn("func.func @eval_step(", train)
        self.assertIn('hwagent.name = "0.weight", hwagent.param = 1', train)
        self.assertIn('{hwagent.name = "correct"}', train)
        evals = open(os.path.join(out, "eval_step.mlir")).read()
        self.assertNotIn("@train_step", evals)
        tensors, meta = read_safetensors(os.path.join(out, "init.safetensors"))
        self.assertEqual(meta.get("format"), "hwagent-import")
        self.assertIn("0.weight:momentum_buffer", tensors)
        self.assertEqual(float(tensors["0.weight:momentum_buffer"].abs().sum()), 0.0)
        self.assertEqual([s["name"] for s in m["state"]], list(tensors))
        self.assertIn("hwagent-run", stdout)

    def test_options_replace_the_files_functions(self):
        out, m, _ = self.imp("--optimizer", "adam", "--lr", "0.01", "--betas", "0.8,0.9",
                             "--loss", "cross_entropy")
        self.assertEqual(m["optimizer"]["kind"], "adam")
        self.assertEqual(m["optimizer"]["lr"], 0.01)
        self.assertEqual(m["optimizer"]["betas"], [0.8, 0.9])
        names = [s["name"] for s in m["state"]]
        self.assertIn("0.weight:exp_avg_sq", names)
        self.assertIn("hwagent:optimizer_step", names)

    def test_lr_override_keeps_the_file_optimizer(self):
        _, m, _ = self.imp("--lr", "0.5")
        self.assertEqual(m["optimizer"]["kind"], "sgd")
        self.assertEqual(m["optimizer"]["lr"], 0.5)
        self.assertEqual(m["optimizer"]["momentum"], 0.9)

    def test_help(self):
        p = subprocess.run([IMPORT, "--help"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0)
        self.assertIn("example_batch()", p.stdout)
        self.assertIn("--optimizer", p.stdout)

    def test_bad_option_value(self):
        p = subprocess.run([IMPORT, os.path.join(ZOO, "mlp.py"), "-o", self.work,
                            "--optimizer", "rmsprop"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("choose from 'sgd', 'adam', 'adamw'", p.stderr)


if __name__ == "__main__":
    unittest.main()
