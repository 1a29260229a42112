"""A three-layer MLP classifier (SGD with momentum and weight decay)."""
import torch
import torch.nn as nn


def model():
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def example_batch():
    return torch.randn(32, 64), torch.randint(0, 10, (32,))


def optimizer(params):
    return torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=1e-4)
