"""The bundled MobileNet-style CNN (examples/cnn_train_step.mlir, written by
scripts/gen_workloads.py) as a PyTorch user writes it: conv3x3 3->32,
depthwise 3x3, pointwise 32->256, conv3x3 256->256, global average pool,
linear 256->10; ReLU, cross-entropy, SGD (lr 0.05), batch 32 of 3x32x32.
The routing test compares its placement with the hand-written step's."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, padding=1, bias=False)
        self.dw = nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False)
        self.pw = nn.Conv2d(32, 256, 1, bias=False)
        self.conv = nn.Conv2d(256, 256, 3, padding=1, bias=False)
        self.fc = nn.Linear(256, 10)

    def forward(self, x):
        x = F.relu(self.stem(x))
        x = F.relu(self.dw(x))
        x = F.relu(self.pw(x))
        x = F.relu(self.conv(x))
        return self.fc(x.mean(dim=(2, 3)))


def model():
    return Net()


def example_batch():
    return torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,))


def optimizer(params):
    return torch.optim.SGD(params, lr=0.05)
