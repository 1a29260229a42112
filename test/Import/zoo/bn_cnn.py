"""A CNN with BatchNorm in train mode, a strided convolution and global
average pooling (Adam)."""
import torch
import torch.nn as nn


def model():
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))


def example_batch():
    return torch.randn(8, 3, 16, 16), torch.randint(0, 10, (8,))


def optimizer(params):
    return torch.optim.Adam(params, lr=1e-3)
