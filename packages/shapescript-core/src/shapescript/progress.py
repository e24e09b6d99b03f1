"""What long commands show while they work: the phases of an export with their times, on a
terminal, and the one-line summary of what was written, everywhere.

Every export target uses the same helper, so they all look alike::

    progress = Progress()                       # writes to stderr
    with progress.phase("checking"):
        prep = prepare(file, fn)
    with progress.phase("tracing"):
        run_tracing(...)
    progress.wrote("codec.pt2")                 # wrote codec.pt2 (1.2 MB) in 4.1 s

On a terminal (the stream is a TTY) each phase shows ``checking…`` while it runs and
``checking  0.31 s`` when it ends, one line each; elsewhere (a pipe, a log file, a test)
the phases print nothing, so scripts see only the summary. A phase that raises ends its
line with ``failed`` and lets the error through: the error's own message follows.

Torch-free and standard library only, so any command or plugin may use it
(``shapescript.api``).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

__all__ = ["Progress", "format_duration", "format_size"]


def format_size(n: int) -> str:
    """Bytes for people: ``512 B``, ``1.2 kB``, ``3.4 MB``, ``1.1 GB`` (powers of 1000).

    >>> format_size(512), format_size(1234), format_size(3_400_000)
    ('512 B', '1.2 kB', '3.4 MB')
    """
    if n < 1000:
        return f"{n} B"
    value = float(n)
    for unit in ("kB", "MB", "GB", "TB"):
        value /= 1000
        if value < 999.95 or unit == "TB":
            return f"{value:.1f} {unit}"
    raise AssertionError("unreachable")


def format_duration(seconds: float) -> str:
    """A duration: ``0.31 s`` under 10 s, ``42 s`` under a minute, then ``3:07`` (m:ss)
    or ``1:02:03`` (h:mm:ss).

    >>> format_duration(0.314), format_duration(42.4), format_duration(187), format_duration(3723)
    ('0.31 s', '42 s', '3:07', '1:02:03')
    """
    if seconds < 10:
        return f"{seconds:.2f} s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _size_of(path: str) -> int:
    """A file's size, or a folder's: the sum of the files inside it."""
    if os.path.isdir(path):
        total = 0
        for root, _dirs, files in os.walk(path):
            for name in files:
                try:
                    total += os.path.getsize(os.path.join(root, name))
                except OSError:
                    pass
        return total
    return os.path.getsize(path)


class Progress:
    """Phases with their times on a terminal, and one summary line (see the module).

    ``stream`` is where it writes (``sys.stderr`` when ``None``, looked up at each write);
    ``live`` forces the terminal form on (``True``) or off (``False``) instead of asking
    the stream whether it is a TTY; ``clock`` is for tests."""

    def __init__(self, stream: TextIO | None = None, live: bool | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._stream, self._live, self._clock = stream, live, clock
        self.start = clock()
        self.phases: list[tuple[str, float]] = []

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stderr

    @property
    def live(self) -> bool:
        """Whether phases are shown: on a terminal, unless ``live`` said otherwise."""
        if self._live is not None:
            return self._live
        try:
            return bool(self.stream.isatty())
        except (AttributeError, ValueError):
            return False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, ValueError):
            pass  # nobody is reading any more: progress is not worth failing for

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Times the block as the phase ``name`` (``checking``, ``tracing``, …)."""
        live = self.live
        if live:
            self._write(f"{name}…")
        t0 = self._clock()
        try:
            yield
        except BaseException:
            if live:
                self._write(f"\r{name} failed\x1b[K\n")
            raise
        took = self._clock() - t0
        self.phases.append((name, took))
        if live:
            self._write(f"\r{name:<10} {format_duration(took)}\x1b[K\n")

    def elapsed(self) -> float:
        """Seconds since this ``Progress`` was made."""
        return self._clock() - self.start

    def summary(self, path: str, detail: str = "") -> str:
        """``wrote PATH (SIZE[, detail]) in TIME``: the size of the file or folder at
        ``path`` (left out when it can't be read)."""
        parts = []
        if detail:
            parts.append(detail)
        try:
            parts.insert(0, format_size(_size_of(path)))
        except OSError:
            pass
        inside = f" ({', '.join(parts)})" if parts else ""
        return f"wrote {path}{inside} in {format_duration(self.elapsed())}"

    def wrote(self, path: str, detail: str = "") -> None:
        """Writes the summary line (on a terminal or not)."""
        self._write(self.summary(path, detail) + "\n")
