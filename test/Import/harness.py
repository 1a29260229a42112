"""Shared helpers of the importer tests: where the tools are, and a parity
run of a model given as Python objects (the model-file contract as a
namespace)."""

from __future__ import annotations

import os
import shutil
import tempfile
import types
import unittest

import torch

from hwagent_import import parity

BIN = os.environ.get("HWAGENT_BIN", os.path.join(os.path.dirname(__file__), "..", "..",
                                                  "build", "bin"))
RUN = os.path.join(BIN, "hwagent-run")
IMPORT = os.path.join(BIN, "hwagent-import")
ZOO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zoo")


def namespace(model, batch, optimizer=None, loss_fn=None) -> types.SimpleNamespace:
    """A model file as objects: model() and example_batch() build fresh ones."""
    ns = types.SimpleNamespace(model=model, example_batch=batch)
    if optimizer is not None:
        ns.optimizer = optimizer
    if loss_fn is not None:
        ns.loss_fn = loss_fn
    return ns


class WorkDir(unittest.TestCase):
    """A test case with a temporary folder, removed afterwards unless
    HWAGENT_KEEP_TEST_FILES is set."""

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix=f"hwagent-{self.id().split('.')[-1]}-")

    def tearDown(self):
        if not os.environ.get("HWAGENT_KEEP_TEST_FILES"):
            shutil.rmtree(self.work, ignore_errors=True)

    def parity(self, user, steps=3, backends=("cpu",), name="model"):
        return parity.check_user(user, steps, RUN, self.work, backends, name)
