"""Learning-rate schedules: ``cosine(steps, lr=…, min=0.0)`` and ``warmup(steps,
schedule)``; an optimizer's ``lr=`` is a number or one of these, which each ``update``
advances one step (the formulas are in ``docs/models.md``).

Only the standard library is used, so ``shapescript.rt.standalone`` can inline these
helpers.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeAlias

    # A learning rate: a number, or a schedule (the rate at update k, from 0).
    Rate: TypeAlias = float | Callable[[int], float]


def _rate(lr: Rate, step: int) -> float:
    return float(lr(step)) if callable(lr) else float(lr)


class Cosine:
    """``cosine(steps, lr=…, min=0.0)``: at update ``k`` (from 0),
    ``min + (lr - min) * (1 + cos(pi * min(k, steps) / steps)) / 2``."""

    __slots__ = ("steps", "lr", "min")

    def __init__(self, steps: int, lr: Rate, min: Rate = 0.0) -> None:
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
            raise ValueError(f"cosine: steps must be an int ≥ 1, not {steps!r}")
        self.steps, self.lr, self.min = steps, lr, min

    def __call__(self, step: int) -> float:
        lo, hi = _rate(self.min, step), _rate(self.lr, step)
        t = min(step, self.steps) / self.steps
        return lo + (hi - lo) * (1 + math.cos(math.pi * t)) / 2

    def __repr__(self) -> str:
        return f"cosine({self.steps}, lr={self.lr!r}, min={self.min!r})"


class Warmup:
    """``warmup(steps, s)``: at update ``k < steps``, ``s(0) * (k + 1) / steps``; after,
    ``s(k - steps)`` (``s`` starts when the warm-up ends)."""

    __slots__ = ("steps", "then")

    def __init__(self, steps: int, then: Rate) -> None:
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise ValueError(f"warmup: steps must be an int ≥ 0, not {steps!r}")
        self.steps, self.then = steps, then

    def __call__(self, step: int) -> float:
        if step < self.steps:
            return _rate(self.then, 0) * (step + 1) / self.steps
        return _rate(self.then, step - self.steps)

    def __repr__(self) -> str:
        return f"warmup({self.steps}, {self.then!r})"


def cosine(steps: int, lr: Rate, min: Rate = 0.0) -> Cosine:
    """A cosine schedule from ``lr`` down to ``min`` over ``steps`` updates, then ``min``."""
    return Cosine(steps, lr, min)


def warmup(steps: int, schedule: Rate) -> Warmup:
    """A linear warm-up over ``steps`` updates to ``schedule``'s first rate, then
    ``schedule`` from its start (a number is a constant schedule)."""
    return Warmup(steps, schedule)
