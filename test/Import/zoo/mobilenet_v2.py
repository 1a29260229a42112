"""torchvision's MobileNetV2 at 32x32, 10 classes (dropout 0 so the eager
reference is deterministic; Adam)."""
import torch
import torchvision


def model():
    return torchvision.models.mobilenet_v2(num_classes=10, dropout=0.0)


def example_batch():
    return torch.randn(2, 3, 32, 32), torch.randint(0, 10, (2,))


def optimizer(params):
    return torch.optim.Adam(params, lr=1e-3)
