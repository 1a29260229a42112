"""The command-line contract: hwagent-import model.py -o DIR writes the four
files; options replace the file's loss and optimizer."""

from __future__ import annotations

import json
import os
import subprocess
import unittest

from harness import IMPORT, RUN, ZOO, WorkDir
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

    def test_loss_scale_leaves_the_float32_step_unchanged(self):
        """Scaling the loss by a power of two and the gradients back is exact:
        the float32 step trains bit for bit as the unscaled one (with SGD
        momentum and with Adam, whose update divides by the gradient)."""
        for optimizer in ("sgd", "adam"):
            runs = []
            for scale in ("1", "1024"):
                out = os.path.join(self.work, f"{optimizer}-{scale}")
                p = subprocess.run([IMPORT, os.path.join(ZOO, "mlp.py"), "-o", out, "-q",
                                    "--optimizer", optimizer, "--loss-scale", scale],
                                   capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, p.stderr)
                with open(os.path.join(out, "manifest.json")) as f:
                    self.assertEqual(json.load(f)["loss_scale"], float(scale))
                r = subprocess.run([RUN, os.path.join(out, "train_step.mlir"), "--init",
                                    os.path.join(out, "init.safetensors"), "--steps", "4",
                                    "--backend", "cpu", "--cpu-threads", "1",
                                    "--print-params", "--progress", "lines"],
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)
                lines = [line for line in r.stdout.splitlines()
                         if line.startswith("param ") or "loss" in line and "->" in line]
                self.assertTrue(lines)
                runs.append(lines)
            self.assertEqual(runs[0], runs[1], optimizer)

    def test_loss_scale_must_be_a_power_of_two(self):
        p = subprocess.run([IMPORT, os.path.join(ZOO, "mlp.py"), "-o", self.work,
                            "--loss-scale", "1000"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("must be a positive power of two", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "manifest.json")))

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
