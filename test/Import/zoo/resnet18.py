"""torchvision's ResNet-18 (Debian python3-torchvision 0.14) at 64x64,
batch 8, 10 classes, BatchNorm in train mode (SGD with momentum)."""
import torch
import torchvision


def model():
    return torchvision.models.resnet18(num_classes=10)


def example_batch():
    return torch.randn(8, 3, 64, 64), torch.randint(0, 10, (8,))


def optimizer(params):
    return torch.optim.SGD(params, lr=0.01, momentum=0.9, weight_decay=5e-4)
