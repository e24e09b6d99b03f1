"""Read-only queries over a parsed and checked file, for editors (the language server).

Nothing here changes a tree or a checker record; it only finds things:

* ``walk(node)`` yields a node and every node under it, in source order;
* ``nodes_at(root, line, col)`` is the chain of nodes that contain a position, from the
  outermost declaration to the innermost node (a name, a number, an axis of a type …);
* ``prelude_file(path)`` turns the names the prelude is checked under (``<prelude.ss>``,
  ``<nn.ss>``) into the files on disk, so "go to definition" can open them.

The syntax tree's node classes are reachable as ``syntax`` (``shapescript.api.syntax``),
so a plugin can tell a ``Name`` from a ``Call`` without importing the parser.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from shapescript.source import Span
from shapescript.syntax import ast as syntax

__all__ = ["syntax", "walk", "children", "nodes_at", "span_contains", "prelude_file",
           "PRELUDE_FILES"]

PRELUDE_FILES = ("prelude.ss", "nn.ss")


def _is_node(x: Any) -> bool:
    return hasattr(x, "__dataclass_fields__") and hasattr(x, "span")


def children(node: Any) -> Iterator[Any]:
    """The nodes directly under ``node`` (a node, or a tuple of nodes), in field order."""
    if isinstance(node, tuple):
        for x in node:
            if _is_node(x):
                yield x
            elif isinstance(x, tuple):
                yield from children(x)
        return
    for name in node.__dataclass_fields__:
        value = getattr(node, name)
        if _is_node(value):
            yield value
        elif isinstance(value, tuple):
            yield from children(value)


def walk(node: Any) -> Iterator[Any]:
    """``node`` (or each node of a tuple) and every node under it, depth first, each
    once even where the parser shares a node between two places."""
    seen: set[int] = set()
    stack = list(reversed(list(children(node)))) if isinstance(node, tuple) else [node]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        stack.extend(reversed(list(children(n))))


def span_contains(span: Span, line: int, col: int) -> bool:
    """Whether the position (1-based line and column) is inside ``span`` or just after
    its last character (where an editor's cursor sits after typing a name)."""
    if (line, col) < (span.line, span.col):
        return False
    return (line, col) <= (span.end_line, span.end_col)


def nodes_at(root: Any, line: int, col: int) -> list[Any]:
    """The nodes containing the position, outermost first: ``root`` is a module (its
    declarations are searched), a declaration, or any node. Empty when none does.

    Where two siblings touch (``a+b`` with the cursor between ``a`` and ``+``), the one
    the position starts wins; a sibling it merely ends is the fallback."""
    start = root.decls if isinstance(root, syntax.Module) else (root,)
    path: list[Any] = []
    candidates = [n for n in children(tuple(start))]
    while True:
        best = None
        for n in candidates:
            sp = n.span
            if not span_contains(sp, line, col):
                continue
            if best is None or (line, col) < (sp.end_line, sp.end_col):
                best = n
                if (line, col) < (sp.end_line, sp.end_col):
                    break
        if best is None:
            return path
        path.append(best)
        candidates = list(children(best))


# Where the prelude's files lie (the compiler reads them from the same folder).
PRELUDE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "prelude")


def prelude_file(path: str) -> str | None:
    """The file on disk behind a prelude module's name (``<nn.ss>`` → ``…/prelude/nn.ss``),
    or None when ``path`` is no prelude module."""
    if path.startswith("<") and path.endswith(">") and path[1:-1] in PRELUDE_FILES:
        return os.path.join(PRELUDE_DIR, path[1:-1])
    return None
