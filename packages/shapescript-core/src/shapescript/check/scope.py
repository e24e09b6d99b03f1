"""Local scopes of a function body: variables, and names gone out of scope."""

from __future__ import annotations

from dataclasses import dataclass, field

from shapescript.check.types import Type
from shapescript.source import Span


@dataclass(slots=True)
class Var:
    type: Type
    span: Span
    kind: str = "local"  # "param" | "local" | "loop"


@dataclass(slots=True)
class Scope:
    """One block's variables; ``dead`` holds names bound only in some branches or
    in a loop body, which are out of scope after it (E0802)."""

    vars: dict[str, Var] = field(default_factory=dict)
    dead: dict[str, Span] = field(default_factory=dict)

    def copy(self) -> "Scope":
        return Scope(dict(self.vars), dict(self.dead))

    def get(self, name: str) -> Var | None:
        return self.vars.get(name)

    def bind(self, name: str, var: Var) -> None:
        self.vars[name] = var
        self.dead.pop(name, None)
