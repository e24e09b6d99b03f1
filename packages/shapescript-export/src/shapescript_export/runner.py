"""Running an export module in another Python (``--python``, ``$SHAPESCRIPT_PYTHON``,
``python3``), as ``shapescript export`` does.

The module's source goes to the child on its standard input, so nothing is written to
a temporary folder; it runs as ``PY -c BOOT -o OUT [--aoti] --error-fd N`` and writes
``OUT`` itself, atomically. When torch fails, the module writes to the pipe ``N``:
torch's message and the ``.ss`` location of the innermost frame in the program's
functions.

The child never outlives the command: on Linux it gets SIGTERM when its parent dies
(even by SIGKILL), and SIGINT or SIGTERM of the command stops it first. Stopped, the
child unwinds through the atomic writer, so no partial output or temporary file is
left; what a killed child may still have left is removed here.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from dataclasses import dataclass

__all__ = ["RunResult", "find_cxx", "python_for_tracing", "run_module"]

# Runs the module read from stdin as __main__, under a name whose lines linecache knows,
# so tracebacks (and the .ss locations found from them) show the generated code.
_BOOT = (
    "import sys, linecache\n"
    "src = sys.stdin.read()\n"
    "name = '<shapescript export ' + sys.argv[1] + '>'\n"
    "linecache.cache[name] = (len(src), None, src.splitlines(True), name)\n"
    "del sys.argv[1]\n"
    "code = compile(src, name, 'exec')\n"
    "g = sys.modules['__main__'].__dict__\n"
    "g.update(__file__=name)\n"
    "exec(code, g)\n"
)


def find_cxx() -> str | None:
    """The C++ compiler AOTInductor would run (``$CXX``, else ``c++``, ``g++`` or
    ``clang++`` on PATH), or None: the very helper the export module inlines."""
    from shapescript_export.program_rt import _ss_ex_find_cxx

    return _ss_ex_find_cxx()


def python_for_tracing(explicit: str | None = None, own: str | None = None) -> str:
    """The Python that traces: ``explicit`` (``--python``), else ``$SHAPESCRIPT_PYTHON``,
    else ``own``, else ``python3`` (``python`` on Windows). The ``shapescript`` command
    passes its own Python as ``own`` without changing the environment of the process it
    runs in."""
    return explicit or os.environ.get("SHAPESCRIPT_PYTHON") or own or (
        "python" if os.name == "nt" else "python3")


@dataclass
class RunResult:
    """How a run ended. ``status``: ``ok``; ``torch`` (torch's error: ``message`` and
    ``location``, ``(file, line, column)`` or None); ``export`` (the export step's own
    error, such as no C++ compiler); ``no-python`` (``python`` can't be run);
    ``no-torch`` (it has no torch or einops); ``interrupted`` (SIGINT or SIGTERM:
    ``signum``); ``write`` (the output can't be written: ``errno``, and ``message`` the
    reason); ``crash`` (anything else: ``stderr``)."""

    status: str
    message: str = ""
    location: tuple[str, int, int] | None = None
    stderr: str = ""
    traceback: str = ""
    signum: int = 0
    errno: int = 0


def run_module(source: str, output: str, *, python: str, aoti: bool = False,
               name: str = "export_module", optimize: bool = False) -> RunResult:
    """Runs the export module ``source`` with ``python`` to write ``output``; with
    ``optimize``, as ``python -O`` (so ``debug`` checks are left out)."""
    from shapescript.api import die_with_parent, sweep_stale
    read_fd, write_fd = os.pipe()
    cmd = [python] + (["-O"] if optimize else []) + [
        "-c", _BOOT, name, "-o", os.path.abspath(output), "--error-fd", str(write_fd)]
    if aoti:
        cmd.append("--aoti")
    stopped: list[int] = []
    started: list[subprocess.Popen[str]] = []

    def stop(signum: int, frame: object) -> None:
        stopped.append(signum)
        if started and started[0].poll() is None:
            started[0].terminate()

    # Installed before the child starts, so no signal can fall between the two.
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, stop)
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, errors="replace",
                                pass_fds=(write_fd,),
                                preexec_fn=die_with_parent if os.name == "posix" else None)
    except (FileNotFoundError, PermissionError) as err:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        os.close(read_fd)
        os.close(write_fd)
        return RunResult("no-python", f"cannot run `{python}`: {err.strerror or err}")
    started.append(proc)
    if stopped:
        proc.terminate()
    os.close(write_fd)
    reader = _Reader(read_fd)
    try:
        try:
            out, stderr_text = proc.communicate(source)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        error = reader.result()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if proc.returncode != 0:
            # What a killed child left (it is dead now, so its temporaries are stale).
            sweep_stale(os.path.dirname(os.path.abspath(output)))
    if stopped:
        return RunResult("interrupted", "interrupted", stderr=stderr_text, signum=stopped[0])
    if proc.returncode == 0:
        return RunResult("ok", stderr=stderr_text)
    if error:
        data = json.loads(error)
        if data.get("write"):
            code, why = data["write"]
            return RunResult("write", why, stderr=stderr_text, errno=code)
        loc = data.get("location")
        return RunResult("torch" if data.get("torch", True) else "export",
                         data.get("message", ""), tuple(loc) if loc else None,
                         stderr_text, data.get("traceback", ""))
    for mod in ("torch", "einops"):
        if f"No module named '{mod}'" in stderr_text:
            return RunResult("no-torch", f"`{python}` can't import {mod}", stderr=stderr_text)
    return RunResult("crash", f"`{python}` exited with code {proc.returncode}", stderr=stderr_text)


class _Reader:
    """Reads the error pipe on a thread, so a large message can't block the child."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.data = b""
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with os.fdopen(self.fd, "rb") as f:
            self.data = f.read()

    def result(self) -> str:
        self.thread.join()
        return self.data.decode("utf-8", "replace")
