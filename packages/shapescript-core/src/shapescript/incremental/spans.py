"""Moving the positions of the nodes and records the incremental checker keeps, when an
edit above them adds or removes lines or characters.

The nodes are frozen so that no phase changes them by mistake; this is the one place
where the syntax tree is changed after parsing: only nodes the checker parsed itself,
and only their positions, in place, so that the records keyed by the node stay valid.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from shapescript.diagnostics import Diagnostic, Label
from shapescript.source import Span


def move_span(sp: Span, dl: int, dc: int) -> Span:
    """``sp`` moved down ``dl`` lines and on ``dc`` characters (negative: up, back)."""
    return Span(sp.file, sp.line + dl, sp.col, sp.end_line + dl, sp.end_col, sp.start + dc,
                sp.end + dc)


_SPAN_FIELDS: dict[type, tuple[str, ...]] = {}
_set = object.__setattr__


def move_node(node: Any, dl: int, dc: int) -> None:
    """Moves the spans of one node (not its children), in place, as ``move_span``."""
    names = _SPAN_FIELDS.get(type(node))
    if names is None:
        names = tuple(f for f in node.__dataclass_fields__
                      if f in ("span", "name_span", "target_spans"))
        _SPAN_FIELDS[type(node)] = names
    for name in names:
        v = getattr(node, name)
        if type(v) is Span:
            _set(node, name, Span(v.file, v.line + dl, v.col, v.end_line + dl, v.end_col,
                                  v.start + dc, v.end + dc))
        elif v:
            _set(node, name, tuple(move_span(s, dl, dc) for s in v))


def move_diag(d: Diagnostic, line_map) -> Diagnostic:
    """``d`` with its lines and its labels' lines mapped by ``line_map``."""
    labels = tuple(replace(lb, line=line_map(lb.line), end_line=line_map(lb.end_line))
                   if isinstance(lb, Label) else lb for lb in d.labels)
    return replace(d, line=line_map(d.line), end_line=line_map(d.end_line), labels=labels)


def move_event(ev: tuple, line_map, dl: int, dc: int) -> tuple:
    """An export site (``ExportSites.events``: its kind, then its span) moved when
    ``line_map`` moves its line."""
    sp = ev[1]
    if type(sp) is Span and line_map(sp.line) != sp.line:
        return (ev[0], move_span(sp, dl, dc)) + tuple(ev[2:])
    return ev
