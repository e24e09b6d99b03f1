"""Local scopes of a function body: variables, names gone out of scope, and which names
a local may have."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shapescript.check.env import (CONSTRUCTORS, RESERVED_TYPE_NAMES, is_generated_name,
                                    reserved_name_error)
from shapescript.check.fail import Fail
from shapescript.check.types import Type
from shapescript.source import Span
from shapescript import error_codes as ec

if TYPE_CHECKING:
    from shapescript.check.env import FnSig, ModuleEnv


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


def check_local_name(name: str, span: Span, env: ModuleEnv, sig: FnSig | None) -> None:
    """E0203 unless ``name`` may name a local (a variable, a loop's or a lambda's
    parameter) in a body of ``sig``: not a generated name, a dim, a generic of the
    signature, a constructor or a type's name."""
    why = label = None
    if is_generated_name(name):
        msg, label, help_ = reserved_name_error(name)
        raise Fail(ec.E0203, msg, label, span=span, help=help_)
    if env.dim_size(name) is not None:
        why, label = "a dim", f"as a value, `{name}` is already the dim's size"
    elif sig is not None and name in sig.generics:
        why = "a generic axis of this signature"
        label = f"as a value, `{name}` is already that axis's size"
    elif name in CONSTRUCTORS or name in RESERVED_TYPE_NAMES:
        # Built-in function names may name locals (layer normalization written out has `var`);
        # constructors and type names may not.
        why, label = "a built-in or reserved name", "a constructor or a type's name"
    if why is not None:
        raise Fail(ec.E0203, f"`{name}` shadows {why}", label or "", span=span,
                   help="choose another name")
