"""The terms of an einops pattern: the written pattern turned into names, ``1``, ``...``
and groups, with integer literals renamed to generated names einops accepts, and the
pattern's text as a message shows it. ``check/patterns.py`` checks them."""

from __future__ import annotations

import keyword
from dataclasses import dataclass

from shapescript.check.fail import Fail
from shapescript.check.types import Axis
from shapescript.syntax import ast
from shapescript import error_codes as ec

__all__ = [
    "Term", "Renamer", "check_unique", "convert_side", "fmt_axes", "side_text", "syntax_error",
    "user_names", "pattern_text",
]


@dataclass(frozen=True, slots=True)
class Term:
    kind: str  # "name" | "one" | "ell" | "group"
    name: str = ""
    literal: int | None = None  # the number a generated name stands for
    items: tuple["Term", ...] = ()
    written: str | None = None  # a Python keyword (`in`), renamed for einops

    def text(self) -> str:
        if self.kind == "name":
            return self.name
        if self.kind == "one":
            return "1"
        if self.kind == "ell":
            return "..."
        return "(" + " ".join(i.text() for i in self.items) + ")"

    def src(self) -> str:
        """As the user wrote it (literals as numbers)."""
        if self.kind == "name":
            if self.written is not None:
                return self.written
            return str(self.literal) if self.literal is not None else self.name
        if self.kind == "group":
            return "(" + " ".join(i.src() for i in self.items) + ")"
        return self.text()

    def names(self) -> list[str]:
        if self.kind == "name":
            return [self.name]
        return [n for i in self.items for n in i.names()]


def side_text(terms: tuple[Term, ...]) -> str:
    return " ".join(t.src() for t in terms)


def fmt_axes(axes: tuple[Axis, ...]) -> str:
    return "[" + " ".join(str(a) for a in axes) + "]"


def pattern_text(pattern: ast.Pattern) -> str:
    """The pattern as written (for messages)."""

    def term(t: ast.PatTerm) -> str:
        if isinstance(t, ast.PatName):
            return t.name
        if isinstance(t, ast.PatInt):
            return str(t.value)
        if isinstance(t, ast.PatEllipsis):
            return "..."
        return "(" + " ".join(term(i) for i in t.items) + ")"

    ins = ", ".join(" ".join(term(t) for t in side) for side in pattern.inputs)
    return f"{ins} -> {' '.join(term(t) for t in pattern.output)}"


def syntax_error(msg: str, label: str = "", help: str | None = None) -> Fail:
    return Fail(ec.E0601, msg, label or "pattern syntax", help=help)


def user_names(terms: tuple[ast.PatTerm, ...]) -> list[str]:
    out: list[str] = []
    for t in terms:
        if isinstance(t, ast.PatName):
            out.append(t.name)
        elif isinstance(t, ast.PatGroup):
            out.extend(user_names(t.items))
    return out


class Renamer:
    """Generated names for integer literals, numbered per side."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.base: dict[int, str] = {}
        self.keywords: dict[str, str] = {}

    def name(self, value: int, k: int) -> str:
        base = self.base.get(value)
        if base is None:
            base = f"ss_{value}"
            while any(t == base or t.startswith(base + "_") for t in self.taken):
                base = "s" + base
            self.base[value] = base
        return base if k == 1 else f"{base}_{k}"

    def keyword(self, word: str) -> str:
        """A name for an axis named by a Python keyword, which einops refuses."""
        if word not in self.keywords:
            base = f"ss_{word}"
            while base in self.taken:
                base = "s" + base
            self.taken.add(base)
            self.keywords[word] = base
        return self.keywords[word]


def convert_side(terms: tuple[ast.PatTerm, ...], ren: Renamer, kind: str,
                 output: bool) -> tuple[Term, ...]:
    counts: dict[int, int] = {}
    n_ell = 0

    def conv(t: ast.PatTerm, in_group: bool) -> Term:
        nonlocal n_ell
        if isinstance(t, ast.PatName):
            if t.name.startswith("_") or t.name.endswith("_"):
                raise syntax_error(f"`{t.name}` can't be an axis name in a pattern: einops "
                                   "names don't start or end with `_`", "not an axis name")
            if keyword.iskeyword(t.name):
                return Term("name", ren.keyword(t.name), written=t.name)
            return Term("name", t.name)
        if isinstance(t, ast.PatEllipsis):
            if in_group and not output:
                raise syntax_error("`...` can't be inside a group on the left of `->`",
                                   "`...` in a group")
            n_ell += 1
            return Term("ell")
        if isinstance(t, ast.PatInt):
            if kind == "einsum":
                raise syntax_error("`einsum` patterns can't contain numbers", "a number",
                                   help="squeeze or insert axes with `rearrange` first")
            if t.value == 1:
                return Term("one")
            if t.value < 1:
                raise syntax_error(f"`{t.value}` can't be an axis size in a pattern", "not a size")
            counts[t.value] = counts.get(t.value, 0) + 1
            return Term("name", ren.name(t.value, counts[t.value]), literal=t.value)
        if in_group:
            raise syntax_error("groups can't be nested", "nested group")
        if kind == "einsum":
            raise syntax_error("`einsum` patterns can't contain groups", "a group",
                               help="split or merge axes with `rearrange` first")
        # `conv` is deleted after use (below), which ruff reads as undefined here.
        return Term("group", items=tuple(conv(i, True) for i in t.items))  # noqa: F821

    out = tuple(conv(t, False) for t in terms)
    del conv  # it refers to itself: a cycle, kept while the cyclic collector is off
    if n_ell > 1:
        raise syntax_error("`...` appears twice on one side", "second `...`")
    return out


def check_unique(side: tuple[Term, ...], where: str) -> None:
    seen: set[str] = set()
    for n in (n for t in side for n in t.names()):
        if n in seen:
            raise syntax_error(f"`{n}` appears twice on the {where} of the pattern", f"`{n}` twice",
                               help="each name stands for one axis; use different names")
        seen.add(n)
