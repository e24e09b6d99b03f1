"""A file's top-level *chunks*, as the incremental checker parses them: a declaration
with the comment lines right above it (a line that starts in column 1 outside any bracket
starts one, as the parser splits a file), and what a chunk's parse keeps (``Chunk``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from shapescript.diagnostics import Diagnostic
from shapescript.source import Span

# Brackets, skipping strings and comments, to tell a continuation line from a new chunk.
_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|[()\[\]{}]')


def split_chunks(lines: list[str]) -> list[tuple[int, int]]:
    """The top-level chunks of a file given as its lines (with their line ends): each
    ``(first, end)``, 0-based and end-exclusive. A chunk starts at a line that begins in
    column 1, outside brackets, with code; the comment lines right above it belong to
    it, blank lines to the chunk before. Lines before the first chunk join it."""
    return split_range(lines, 0, len(lines))[0]


def first_code(lines: list[str], lo: int, hi: int) -> int:
    """The first line in ``lines[lo:hi]`` that starts in column 1 with code."""
    for i in range(lo, hi):
        c = lines[i][:1]
        if c and c not in " \t\r\n\f\v#":
            return i
    return hi


def split_range(lines: list[str], lo: int, hi: int) -> tuple[list[tuple[int, int]], int]:
    """``split_chunks`` of ``lines[lo:hi]`` (positions in ``lines``), and the bracket
    depth after the last line."""
    starts: list[int] = []
    depth = 0
    for i in range(lo, hi):
        line = lines[i]
        c = line[:1]
        if depth == 0 and c and c not in " \t\r\n\f\v#":
            k = i
            while k > lo and lines[k - 1][:1] == "#" and (not starts or k - 1 > starts[-1]):
                k -= 1
            starts.append(k)
        if '"' not in line:
            code = line.partition("#")[0]
            opened = code.count("(") + code.count("[") + code.count("{")
            closed = code.count(")") + code.count("]") + code.count("}")
            if opened or closed:
                depth = max(0, depth + opened - closed)
        else:
            for m in _TOKENS.finditer(line):
                t = m.group()
                if t in "([{":
                    depth += 1
                elif t in ")]}":
                    depth = max(0, depth - 1)
    if not starts:
        return ([(lo, hi)] if hi > lo else []), depth
    starts[0] = lo
    return [(a, starts[j + 1] if j + 1 < len(starts) else hi)
            for j, a in enumerate(starts)], depth


@dataclass
class Chunk:
    """One chunk's parse, kept while its text is unchanged (moved when lines above it
    change)."""

    first: int  # 0-based line
    end: int
    text: str
    offset: int  # character offset of its first line
    decls: tuple[Any, ...]
    diagnostics: list[Diagnostic]
    doc: str | None
    doc_spans: tuple[Span, ...]
    nodes: list[Any] = field(default_factory=list)  # every node, each once
    skeleton: tuple[Any, ...] = ()  # ``skeleton_of`` of its declarations
    # Characters the chunk's nodes are behind its place (an edit above it changed a
    # line's length but not the line count): moved only when something needs offsets.
    pending: int = 0
    dropped: tuple[Any, ...] = ()  # the declarations the parser dropped (``Module.dropped``)
