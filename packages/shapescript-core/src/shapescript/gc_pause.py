"""The cyclic garbage collector paused while the front end runs.

Parsing and checking allocate many small, acyclic objects (tokens, nodes, sizes, types,
records): the cyclic collector would only slow them down, so it waits until the work is
done. Nested pauses are fine: only the outermost one turns it back on.
"""

from __future__ import annotations

import gc
from types import TracebackType

__all__ = ["paused_gc"]


class paused_gc:
    """``with paused_gc():`` runs its block with the collector off, and turns it back on
    after (when it was on before)."""

    __slots__ = ("_was_on",)

    def __enter__(self) -> None:
        self._was_on = gc.isenabled()
        gc.disable()

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._was_on:
            gc.enable()
