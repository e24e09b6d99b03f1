"""What a call's signature can't say, checked at the call: ``with a or b`` of an extern,
and the prelude's rules torch would refuse when it runs."""

from __future__ import annotations

from shapescript.check.env import PRELUDE_FILES, FnSig
from shapescript.check.fail import Fail
from shapescript.check.literals import literal_number
from shapescript.check.types import NONE, Type
from shapescript.syntax import ast
from shapescript import error_codes as ec

__all__ = ["one_of_rule", "prelude_rules"]


def one_of_rule(sig: FnSig, matched: dict[str, ast.Arg], e: ast.Call,
                types: dict[str, Type]) -> None:
    """``extern fn … with a or b``: a call gives at least one of them (E0501), and not
    every one it gives is `none` (E0415), which torch would refuse when it runs."""
    one_of = sig.one_of
    names = " or ".join(f"`{n}=`" for n in one_of)
    if not any(n in matched for n in one_of):
        raise Fail(ec.E0501, f"`{sig.name}` needs {names}", "none given", span=e.span,
                   help=f"give one, e.g. `{sig.name}(…, {one_of[0]}=…)`")
    if all(types.get(n) == NONE for n in one_of if n in matched):
        raise Fail(ec.E0415, f"`{sig.name}` needs {names} to be given, and each given is "
                   "`none`", "each is `none`", span=e.span,
                   help=f"give at least one a value, e.g. `{sig.name}(…, {one_of[0]}=…)`")


def prelude_rules(sig: FnSig, matched: dict[str, ast.Arg], e: ast.Call) -> None:
    """What the prelude's signatures can't say, checked where a call would fail in torch:
    ``dropout``'s probability, when literal, is within [0, 1]."""
    if sig.file not in PRELUDE_FILES:
        return
    if sig.name == "dropout" and "p" in matched:
        v = literal_number(matched["p"].value)
        if v is not None and not 0 <= v <= 1:
            raise Fail(ec.E0701, f"`dropout`'s probability is {v}, outside [0, 1]",
                       "not a probability", span=matched["p"].value.span,
                       help="drop a fraction of the elements: a number from 0 to 1")
