"""The port's refusals: a ``PortError`` carries its code (E36xx), the module of the
source it is about, and the operation, so the command prints one line that names both."""

from __future__ import annotations
from shapescript.api import error_codes as ec

# The codes, registered in the core's table with their explain pages.
UNTRACEABLE = ec.E3601
UNSUPPORTED_OP = ec.E3602
MISMATCH = ec.E3603
UNRECOGNISED = ec.E3604
BAD_SOURCE = ec.E3605


class PortError(Exception):
    """A source the port refuses, or a port that doesn't give what the source gives.

    ``module`` is the source's module path (``model.layers.0.self_attn``; ``""`` for the
    whole model) and ``op`` the operation (an aten operator, a module class, a function
    of the port); the message says what to do. The command prints
    ``error[CODE]: message`` and exits 1 (2 for ``BAD_SOURCE``, an error of the command).
    """

    def __init__(self, code: str, message: str, *, module: str = "", op: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.module = module
        self.op = op

    @property
    def exit_code(self) -> int:
        return 2 if self.code == BAD_SOURCE else 1

    def __str__(self) -> str:
        return f"error[{self.code}]: {self.message}"


def where(module: str, op: str) -> str:
    """``module `m` (op `o`)``: how a message names the place it is about."""
    at = f"module `{module}`" if module else "the model's own forward"
    return f"{at}, operation `{op}`" if op else at
