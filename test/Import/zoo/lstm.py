"""An LSTM sequence classifier: the last hidden state of a one-layer LSTM
over 10 time steps, then a linear layer (Adam)."""
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(input_size=8, hidden_size=32, batch_first=True)
        self.fc = nn.Linear(32, 5)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.fc(out[:, -1, :])


def model():
    return Classifier()


def example_batch():
    return torch.randn(16, 10, 8), torch.randint(0, 5, (16,))


def optimizer(params):
    return torch.optim.Adam(params, lr=5e-3)
