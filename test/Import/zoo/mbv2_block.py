"""A MobileNetV2-style network: stem, two inverted residual blocks
(1x1 expand, depthwise 3x3, ReLU6, 1x1 project, residual), classifier (AdamW)."""
import torch
import torch.nn as nn


class InvertedResidual(nn.Module):
    def __init__(self, c, expand, stride=1):
        super().__init__()
        h = c * expand
        self.use_res = stride == 1
        self.block = nn.Sequential(
            nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU6(),
            nn.Conv2d(h, h, 3, stride=stride, padding=1, groups=h, bias=False),
            nn.BatchNorm2d(h), nn.ReLU6(),
            nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        y = self.block(x)
        return x + y if self.use_res else y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU6())
        self.blocks = nn.Sequential(InvertedResidual(16, 4), InvertedResidual(16, 4, stride=2))
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(x.mean(dim=(2, 3)))


def model():
    return Net()


def example_batch():
    return torch.randn(8, 3, 32, 32), torch.randint(0, 10, (8,))


def optimizer(params):
    return torch.optim.AdamW(params, lr=2e-3, weight_decay=0.01)
