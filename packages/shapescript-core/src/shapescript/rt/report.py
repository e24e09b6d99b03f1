"""``report(step[, total], name=value, …)`` and its sinks.

Each record, ``{"step": …, name: value, …, "time": …}``, goes to the terminal's sink and
to every sink ``sink`` added: on the terminal, a line per report with the rate and, given
the total, the ETA (``step 40/320: loss 0.568, acc 0.912 (12.5 steps/s, ETA 22s)``); on
a TTY the lines between tenths of the total are a live line rewritten in place; a
JSON-lines file per ``sink("run.jsonl")`` or ``shapescript run --log run.jsonl``. Under a process
group of more than one process, only
rank 0 reports (``shapescript run --all-ranks``: every rank to its terminal, rank 0 alone
to the files). Only torch and the standard library are used, so
``shapescript.rt.standalone`` can inline these helpers.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import time
from typing import TYPE_CHECKING

import torch

from shapescript.files import write_error

from .ranks import _all_ranks_output, _process_group

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import IO, Any, SupportsFloat, TextIO, TypeAlias

    # A record: ``step`` (an int), the values (numbers), ``time`` (seconds).
    _Record = dict[str, Any]
    _Sink = Callable[[_Record], object]
    _Int: TypeAlias = int | torch.Tensor
    _Value: TypeAlias = torch.Tensor | SupportsFloat


def _report_value(v: _Value) -> int | float:
    if isinstance(v, torch.Tensor):
        if v.numel() != 1:
            raise TypeError(f"report: values are numbers or [] tensors, not shape {tuple(v.shape)}")
        return v.item()
    if isinstance(v, (bool, int, float)):
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        raise TypeError(f"report: values are numbers or [] tensors, not {type(v).__name__}") from None


def _format_value(v: int | float) -> str:
    if isinstance(v, bool) or isinstance(v, int):
        return str(v)
    return format(v, ".4g")


def format_record(step: int, values: Mapping[str, int | float], total: int | None = None, progress: str = "") -> str:
    """``step 50: loss 0.568, acc 0.912``: each value ``.4g`` (ints as they are), in order;
    ``step 50/320: …`` with a ``total``, and ``progress`` (the rate and ETA) after."""
    head = f"step {step}/{total}" if total is not None else f"step {step}"
    body = ", ".join(f"{k} {_format_value(v)}" for k, v in values.items())
    line = f"{head}: {body}" if body else head
    return f"{line} ({progress})" if progress else line


def _clock(seconds: float) -> str:
    """``42s``, ``3:07``, ``1:02:03``: an ETA."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _rate_text(steps_per_s: float) -> str:
    if steps_per_s >= 1:
        return f"{steps_per_s:.3g} steps/s"
    return f"{1 / steps_per_s:.3g} s/step"


class _LiveGuard:
    """Stands in for ``sys.stdout``/``sys.stderr`` while a live progress line is showing:
    the first write of anything else ends that line first, then the streams go back."""

    def __init__(self, inner: TextIO, owner: TerminalSink) -> None:
        self._inner, self._owner = inner, owner

    def write(self, s: str) -> int:
        self._owner.end_line()
        return self._inner.write(s)

    def __getattr__(self, name: str) -> Any:
        if name in ("_inner", "_owner"):
            raise AttributeError(name)
        return getattr(self._inner, name)


class TerminalSink:
    """Reports on a terminal, one line each, with the rate since the first report and,
    when ``report`` was given the total, ``step/total`` and the ETA:
    ``step 40/320: loss 0.568 (12.5 steps/s, ETA 22s)``.

    Off a TTY every report is a line. On a TTY the latest report is a live line,
    rewritten in place (``\\r``); a line is kept (the live one ends) at the first report,
    each time another tenth of the total is reached, and at the last step, so about ten
    lines stay, like one per epoch; without a total every report is kept. ``stream``
    defaults to ``sys.stdout`` at each report."""

    def __init__(self, stream: TextIO | None = None, live: bool | None = None) -> None:
        self.stream, self.live = stream, live
        self._showing: TextIO | None = None          # the stream holding an unfinished live line
        self._saved: tuple[TextIO, TextIO] | None = None
        # The guards last taken off: ``print`` holds ``sys.stdout`` by a borrowed reference
        # while it writes, so a guard that gives the streams back must outlive that call.
        self._retired: tuple[TextIO, ...] = ()
        self.total: int | None = None
        self._first: tuple[int, float] | None = None            # (step, time) of the first report: the rate's start
        self._kept: int | None = None             # the tenth of the total of the last kept line

    def set_total(self, total: int | None) -> None:
        """The number of steps in all (``report(step, total, …)``): shown, and the ETA."""
        self.total = int(total) if total is not None else None

    def _progress(self, step: int, now: float) -> str:
        if self._first is None:
            self._first = (step, now)
            return ""
        step0, t0 = self._first
        if step <= step0 or now <= t0:
            return ""
        rate = (step - step0) / (now - t0)
        text = _rate_text(rate)
        if self.total is not None:
            text += f", ETA {_clock(max(0, self.total - 1 - step) / rate)}"
        return text

    def _keep(self, step: int) -> bool:
        """Whether this report's line stays on a TTY."""
        if self.total is None or self.total <= 0:
            return True
        tenth = min(10, step * 10 // self.total)
        if self._kept is None or tenth != self._kept or step >= self.total - 1:
            self._kept = tenth
            return True
        return False

    def __call__(self, record: _Record) -> None:
        stream = self._target()
        step = record["step"]
        progress = self._progress(step, record.get("time", 0.0))
        line = format_record(step, {k: v for k, v in record.items() if k not in ("step", "time")},
                             self.total, progress)
        live = self.live
        if live is None:
            try:
                live = stream.isatty()
            except (AttributeError, ValueError):
                live = False
        if not live:
            self.end_line()
            stream.write(line + "\n")
            stream.flush()
            return
        if self._showing is not None and self._showing is not stream:
            self.end_line()
        stream.write("\r" + line + "\x1b[K")
        stream.flush()
        if self._keep(step):
            if self._showing is not None:
                self._showing = None
                self._unguard()
            stream.write("\n")
            stream.flush()
            return
        if self._showing is None:
            self._showing = stream
            self._guard()

    def _target(self) -> TextIO:
        s = self.stream if self.stream is not None else sys.stdout
        return s._inner if isinstance(s, _LiveGuard) else s

    def _guard(self) -> None:
        if self.stream is not None:
            return
        out, err = sys.stdout, sys.stderr
        self._saved = (out, err)
        sys.stdout = _LiveGuard(out, self)
        sys.stderr = _LiveGuard(err, self)

    def _unguard(self) -> None:
        if self._saved is not None:
            out, err = self._saved
            self._saved = None
            self._retired = (sys.stdout, sys.stderr)
            if isinstance(sys.stdout, _LiveGuard) and sys.stdout._owner is self:
                sys.stdout = out
            if isinstance(sys.stderr, _LiveGuard) and sys.stderr._owner is self:
                sys.stderr = err

    def end_line(self) -> None:
        """Finishes the live line, if one is showing (before other output, and at exit)."""
        stream, self._showing = self._showing, None
        self._unguard()
        if stream is not None:
            try:
                stream.write("\n")
                stream.flush()
            except (ValueError, OSError):
                pass

    def close(self) -> None:
        self.end_line()


class JsonLinesSink:
    """Appends each record as one JSON object per line, with ``time`` (seconds since the
    epoch); the file is created (emptied) when the sink is added, and flushed per line."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.given = os.fspath(path)     # an error names it as the user did
        self.path = os.path.abspath(self.given)
        self._file: IO[str] | None = None
        self._open("w")

    def __call__(self, record: _Record) -> None:
        if self._file is None:
            self._open("a")
        try:
            self._file.write(json.dumps(record) + "\n")  # type: ignore[union-attr]
            self._file.flush()  # type: ignore[union-attr]
        except OSError as err:  # a full disk: the log's error, named as every output's
            raise write_error(err, self.given) or err from None

    def _open(self, mode: str) -> None:
        try:
            self._file = open(self.path, mode, encoding="utf-8")
        except OSError as err:
            raise write_error(err, self.given) or err from None

    def close(self) -> None:
        if self._file is not None:
            file, self._file = self._file, None
            try:
                file.close()
            except OSError:
                pass          # the write that failed has said so


_SINKS: list[_Sink] = []
_TERMINAL: list[_Sink] = []


def _terminal() -> _Sink:
    if not _TERMINAL:
        _TERMINAL.append(TerminalSink())
        atexit.register(_close_sinks)
    return _TERMINAL[0]


def sink(target: str | os.PathLike[str] | _Sink) -> None:
    """Adds a sink that every ``report`` also goes to: a path (a JSON-lines file, emptied
    now; adding the same path again does nothing) or, from Python, any callable taking
    the record (a dict: ``step``, the values in order, ``time``)."""
    if callable(target) and not isinstance(target, (str, bytes, os.PathLike)):
        _SINKS.append(target)
        return None
    path = os.path.abspath(os.fspath(target))
    group = _process_group()
    if group is not None and group[0] != 0:
        return None                   # rank 0 writes the files
    for s in _SINKS:
        if isinstance(s, JsonLinesSink) and s.path == path:
            return None
    _SINKS.append(JsonLinesSink(target))
    return None


def report_sink(path: str | os.PathLike[str]) -> None:
    """``shapescript run --log FILE``: every ``report`` also goes to the JSON-lines file
    ``path`` (``sink(path)``, before the program starts)."""
    sink(path)


def sinks() -> list[_Sink]:
    """The sinks in use: the terminal's, then those ``sink`` added."""
    return [_terminal()] + list(_SINKS)


def reset_sinks(terminal: _Sink | None = None) -> None:
    """Closes the added sinks and forgets them; ``terminal`` replaces the terminal sink
    (a ``TerminalSink`` or any callable; ``None`` a fresh ``TerminalSink``)."""
    for s in _SINKS:
        close = getattr(s, "close", None)
        if close is not None:
            close()
    _SINKS.clear()
    if _TERMINAL:
        close = getattr(_TERMINAL[0], "close", None)
        if close is not None:
            close()
    if not _TERMINAL:
        atexit.register(_close_sinks)
    _TERMINAL[:] = [terminal if terminal is not None else TerminalSink()]


def report(step: _Int, total: _Int | None = None, /, **values: _Value) -> None:
    """Sends ``{"step": step, name: value, …, "time": time.time()}`` to every sink; values
    are numbers or one-element tensors (read with ``.item()``). ``total``, the number of
    steps in all, puts ``step/total`` and the ETA on the terminal's line (not in the
    records). Under a process group, rank 0's values go (the others' too, to their
    terminals, with ``--all-ranks``)."""
    if total is not None:
        set_total = getattr(_terminal(), "set_total", None)
        if set_total is not None:
            set_total(int(total) if not isinstance(total, torch.Tensor) else int(total.item()))
    record: _Record = {"step": int(step) if not isinstance(step, torch.Tensor) else int(step.item())}
    for k, v in values.items():
        if k in ("step", "time"):
            raise ValueError(f"report: `{k}` is written by report itself; name the value otherwise")
        record[k] = _report_value(v)
    record["time"] = time.time()
    group = _process_group()
    if group is not None and group[0] != 0:
        if _all_ranks_output():
            _terminal()(record)
        return
    _terminal()(record)
    for s in _SINKS:
        s(dict(record))


def _close_sinks() -> None:
    for s in list(_SINKS) + list(_TERMINAL):
        close = getattr(s, "close", None)
        if close is not None:
            try:
                close()
            except Exception:
                pass


__all__ = ["TerminalSink", "JsonLinesSink", "format_record", "report", "sink", "sinks",
           "reset_sinks", "report_sink"]
