"""How a command stops when it is asked to: SIGINT and SIGTERM as an exception, and
child processes that die with their parent.

Python ends at SIGTERM without unwinding: no ``finally`` runs, so a writer's temporary
file stays. ``stop_on_signals`` makes SIGTERM raise ``Stopped`` as SIGINT does (a
``KeyboardInterrupt``, so ``except Exception`` in a program doesn't swallow it, and a
program that saves a checkpoint on Ctrl-C does so on SIGTERM too). The stack unwinds,
each atomic writer removes its temporary, and the command ends with one line and the
shell's code for the signal, 128 + its number (130, 143).
"""

from __future__ import annotations

import ctypes
import signal
import threading

__all__ = ["Stopped", "stop_on_signals", "stop_message", "signal_of", "die_with_parent"]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(KeyboardInterrupt):
    """SIGINT or SIGTERM, raised where the program was: ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def signal_of(err: KeyboardInterrupt) -> int:
    """The signal that stopped: ``Stopped``'s, else SIGINT (Python's own
    ``KeyboardInterrupt``)."""
    return getattr(err, "signum", signal.SIGINT)


def stop_message(signum: int) -> str:
    """``interrupted by SIGINT``, ``terminated by SIGTERM``: what the command says."""
    name = signal.Signals(signum).name
    return f"{'interrupted' if signum == signal.SIGINT else 'terminated'} by {name}"


def _raise_stopped(signum: int, frame: object) -> None:
    from shapescript import files

    if files.holding_temporaries():  # raised once the writer's temporary is made or gone
        files.defer_stop(lambda: _raise_stopped(signum, frame))
        return
    raise Stopped(signum)


def stop_on_signals() -> None:
    """SIGINT and SIGTERM raise ``Stopped`` from now on, in the main thread (signals are
    only handled there). A signal the process was started ignoring (``nohup``, a
    background job's SIGINT) stays ignored."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _raise_stopped)


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """This process gets ``sig`` when its parent dies, even by SIGKILL (Linux's
    ``PR_SET_PDEATHSIG``; elsewhere nothing: the parent's own signal handling is what
    there is). Call it in the child, first thing (a ``preexec_fn``), then check that the
    parent is still the one expected: it may have died before."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(sig))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
