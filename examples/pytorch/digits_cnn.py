"""A small CNN for scikit-learn's 8x8 digits, written the way PyTorch users
write models: the file hwagent-import reads (docs/importer.md).

    build/bin/hwagent-import examples/pytorch/digits_cnn.py -o build/digits_import
    build/bin/hwagent-run build/digits_import/train_step.mlir --data build/digits/digits.npz \
        --val-split 0.2 --epochs 10 --init build/digits_import/init.safetensors \
        --save build/digits_import/trained.safetensors
    build/bin/hwagent-import evaluate examples/pytorch/digits_cnn.py \
        build/digits_import/trained.safetensors --data build/digits/digits.npz --val-split 0.2

`scripts/dev import-digits` runs the three.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 2 * 2, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)   # 16 x 4 x 4
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)             # 32 x 2 x 2
        return self.fc(torch.flatten(x, 1))


def model():
    return DigitsCNN()


def example_batch():
    """One batch's shapes and dtypes: 32 images of 1x8x8, class labels."""
    return torch.zeros(32, 1, 8, 8), torch.zeros(32, dtype=torch.int64)


def optimizer(params):
    return torch.optim.SGD(params, lr=0.05, momentum=0.9)
