"""Small modules for the port's tests: a CNN that ports, and modules that don't."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class Residual(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x):
        return F.relu(x + self.conv2(F.relu(self.conv1(x))))


class SmallCNN(nn.Module):
    """Convolutions, max pooling, a residual block, global average pooling, a classifier."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.block = Residual(8)
        self.head = nn.Linear(8, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.stem(x)))
        x = self.block(x)
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def cnn():
    torch.manual_seed(0)
    return SmallCNN(), (torch.randn(2, 3, 16, 16),)


class Erf(nn.Module):
    """`erf` has no built-in: it becomes a typed extern fn."""

    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 6)

    def forward(self, x):
        return torch.erf(self.lin(x))


def erf():
    torch.manual_seed(0)
    return Erf(), (torch.randn(2, 4),)


class Branchy(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        if x.sum() > 0:
            return self.lin(x)
        return -x


def branchy():
    return Branchy(), (torch.randn(2, 4),)


class Nonzero(nn.Module):
    def forward(self, x):
        return torch.nonzero(x)


def nonzero():
    return Nonzero(), (torch.randn(2, 4),)


def not_a_pair():
    return nn.Linear(4, 4)
