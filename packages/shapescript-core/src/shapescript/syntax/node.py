"""The base of every syntax-tree node.

A node is one place in one file: nodes compare and hash by identity, so the checker's
records (a type for each expression, what each name and call resolves to) are dicts keyed
by the node itself. Two parses of one text give equal-looking but distinct trees; compare
their ``repr``s to compare them by value.
"""

from __future__ import annotations

__all__ = ["Node"]


class Node:
    """A syntax-tree node (a frozen dataclass, ``eq=False``: identity)."""

    __slots__ = ()
