"""torchvision's MobileNetV2 at 64x64, batch 8, 10 classes (dropout 0 so the eager
reference is deterministic; Adam)."""
import torch
import torchvision


def model():
    return torchvision.models.mobilenet_v2(num_classes=10, dropout=0.0)


def example_batch():
    return torch.randn(8, 3, 64, 64), torch.randint(0, 10, (8,))


def optimizer(params):
    return torch.optim.Adam(params, lr=1e-3)
