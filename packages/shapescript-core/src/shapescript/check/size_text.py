"""Printing a size normal form: the source form that messages show and the Python
expression that generated checks compute.

The source form uses the size grammar (no powers, no unary minus where a positive term
can lead); Python uses the same shape with ``//``. The functions read a ``Size``'s raw
polynomial (``._d``) and a floor atom's ``num``/``den``; they take those objects
untyped because ``check/sizes.py`` imports this module (phase modules form no import
circle).
"""

from __future__ import annotations

from typing import Callable

from shapescript.check.monomials import display_key

__all__ = ["src_atom", "format_sum"]


def src_atom(name: str) -> str:
    # An unknown is numbered where it is made (`?k#5`) so that two never meet; a message
    # shows it as written.
    return name.partition("#")[0]


def _format_floor(f, atom: Callable[[str], str], div: str) -> str:
    num = f.num
    nd = num._d
    ns = format_sum(num, atom, div)
    if len(nd) > 1 or any(c < 0 for c in nd.values()):
        ns = f"({ns})"
    den = f.den
    dd = den._d
    ds = format_sum(den, atom, div)
    simple = len(dd) == 1 and (
        (() in dd and dd[()] > 0)
        or any(c == 1 and len(m) == 1 and type(m[0]) is str for m, c in dd.items())
    )
    if not simple:
        ds = f"({ds})"
    return f"{ns}{div}{ds}"


def _format_term(m: tuple, c: int, atom: Callable[[str], str], div: str, lead: bool) -> str:
    """A term with its sign handled by the caller: formats ``abs(c) * m``; ``lead``
    means a leading minus will be written right before it."""
    k = -c if c < 0 else c
    if not m:
        return str(k)
    parts = [] if k == 1 else [str(k)]
    alone = k == 1 and len(m) == 1 and not lead
    for a in m:
        if type(a) is str:
            parts.append(atom(a))
        else:
            s = _format_floor(a, atom, div)
            parts.append(s if alone else f"({s})")
    return "*".join(parts)


def format_sum(s, atom: Callable[[str], str], div: str) -> str:
    d = s._d
    if not d:
        return "0"
    items = sorted(d.items(), key=display_key)
    if items[0][1] < 0:
        for i, (_, c) in enumerate(items):
            if c > 0:
                items.insert(0, items.pop(i))
                break
    out = []
    for i, (m, c) in enumerate(items):
        if i == 0:
            t = _format_term(m, c, atom, div, lead=c < 0)
            out.append(f"-{t}" if c < 0 else t)
        else:
            out.append(" - " if c < 0 else " + ")
            out.append(_format_term(m, c, atom, div, lead=False))
    return "".join(out)
