"""The process group a training program runs in when it runs on many processes.

``torchrun`` (``torch.distributed.run``), or ``shapescript run --nproc-per-node N``, which
launches through it, starts one process per rank with ``RANK``, ``LOCAL_RANK``,
``WORLD_SIZE``, ``MASTER_ADDR`` and ``MASTER_PORT`` in its environment. In each,
``shapescript run`` calls ``start()`` before the program's ``main()`` and ``stop()`` after:

- the default ``torch.distributed`` process group is started: backend gloo on the CPU, and
  on a machine with CUDA ``cpu:gloo,cuda:nccl`` (each collective on its tensors' device),
  with this rank's GPU, ``LOCAL_RANK``, made current so the program's ``cuda`` is its own;
- every collective has a timeout (``SHAPESCRIPT_DIST_TIMEOUT`` seconds, default 300), so a
  rank waiting for one that will never come fails with an error instead of hanging;
- standard output is rank 0's alone, unless ``SHAPESCRIPT_ALL_RANKS`` is set
  (``--all-ranks``): then every rank's lines start ``[rankR]: `` (as torch prefixes
  an uncaught exception's traceback); standard error is every
  rank's, each line prefixed so an error names the rank it came from;
- with ``SHAPESCRIPT_FSDP`` set (``--fsdp``), ``sgd``/``adamw`` shard the model's fields
  among the ranks with FSDP2's ``fully_shard`` (``sharding.py``) rather than keep a
  whole copy on each.

The training built-ins (``training.py``, ``report.py``, ``checkpoint.py``) see the group
through ``torch.distributed`` itself, so a Python program that starts its own group
(``torch.distributed.init_process_group``) gets the same behaviour from them.
"""

from __future__ import annotations

import datetime
import io
import os
import sys
from typing import TYPE_CHECKING

import torch

from .device import _OVERRIDE
from .ranks import rank, world_size

if TYPE_CHECKING:
    from typing import TextIO

DEFAULT_TIMEOUT = 300.0


def launched() -> bool:
    """Whether this process is a rank started by ``torchrun`` (its variables are set)."""
    return all(k in os.environ for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"))


def timeout_seconds() -> float:
    """The collectives' timeout: ``SHAPESCRIPT_DIST_TIMEOUT`` seconds, default 300."""
    raw = os.environ.get("SHAPESCRIPT_DIST_TIMEOUT", "")
    if not raw:
        return DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"SHAPESCRIPT_DIST_TIMEOUT is a number of seconds, not {raw!r}") from None
    if not value > 0:
        raise ValueError(f"SHAPESCRIPT_DIST_TIMEOUT must be > 0, not {raw!r}")
    return value


def backend() -> str:
    """``"gloo"``, or ``"cpu:gloo,cuda:nccl"`` where CUDA is available and the program's
    device, when set for the process (``--devices``), is CUDA: ``--devices cpu`` on a GPU
    machine neither claims a GPU a rank nor needs one."""
    chosen = _OVERRIDE[0]
    if chosen is not None and chosen.type != "cuda":
        return "gloo"
    if torch.cuda.is_available() and torch.distributed.is_nccl_available():
        return "cpu:gloo,cuda:nccl"
    return "gloo"


def start(timeout: float | None = None) -> tuple[int, int]:
    """Starts the default process group from ``torchrun``'s environment (see the module's
    docstring) unless one is started; returns ``(rank, world size)``.

    >>> start()                                      # under torchrun    # doctest: +SKIP
    (1, 2)
    """
    d = torch.distributed
    if not d.is_available():
        raise RuntimeError("this build of torch has no torch.distributed")
    if not d.is_initialized():
        seconds = timeout_seconds() if timeout is None else float(timeout)
        kind = backend()
        if "nccl" in kind:
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
        d.init_process_group(kind, timeout=datetime.timedelta(seconds=seconds))
    return rank(), world_size()


def stop() -> None:
    """Ends the default process group, if one is started."""
    d = torch.distributed
    if d.is_available() and d.is_initialized():
        d.destroy_process_group()


class RankPrefixed(io.TextIOBase):
    """A text stream that writes each whole line to ``inner`` at once, starting with
    ``prefix``, so ranks sharing one terminal don't cut into each other's lines; never a
    terminal itself, so reports are plain lines rather than one live line ranks share."""

    def __init__(self, inner: TextIO, prefix: str) -> None:
        self._inner, self._prefix, self._pending = inner, prefix, ""

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            # Text only: writers that probe for a binary stream (``write(b"")``) must
            # find none.
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        text = self._pending + s
        cut = text.rfind("\n") + 1
        self._pending = text[cut:]
        if cut:
            lines = text[:cut].splitlines(keepends=True)
            self._inner.write("".join(self._prefix + ln for ln in lines))
            self._inner.flush()
        return len(s)

    def flush(self) -> None:
        if self._pending:
            # A line without its end yet: out now (``print(…, flush=True)``), whole.
            self._inner.write(self._prefix + self._pending + "\n")
            self._pending = ""
        self._inner.flush()

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._inner, "encoding", "utf-8")


def route_output(all_ranks: bool | None = None) -> None:
    """Points ``sys.stdout`` and ``sys.stderr`` as the module's docstring says, for this
    rank of a group of more than one process; nothing otherwise."""
    if world_size() < 2:
        return
    if all_ranks is None:
        all_ranks = os.environ.get("SHAPESCRIPT_ALL_RANKS", "") not in ("", "0")
    r = rank()
    if all_ranks:
        sys.stdout = RankPrefixed(sys.stdout, f"[rank{r}]: ")
    elif r != 0:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")
    sys.stderr = RankPrefixed(sys.stderr, f"[rank{r}]: ")


__all__ = ["DEFAULT_TIMEOUT", "launched", "timeout_seconds", "backend", "start", "stop",
           "route_output", "RankPrefixed"]
