"""Running an export module in another Python (``--python``, ``$SHAPESCRIPT_PYTHON``,
``python3``), as ``shapescript export`` does.

The module is written to a temporary folder and run as
``PY MODULE -o OUT [--aoti] --error-json ERR``; it writes ``OUT`` itself, atomically.
When torch fails, the module writes ``ERR``: torch's message and the ``.ss`` location
of the innermost frame in the program's functions.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

__all__ = ["RunResult", "find_cxx", "python_for_tracing", "run_module"]


def find_cxx() -> str | None:
    """The C++ compiler AOTInductor would run (``$CXX``, else ``c++``, ``g++`` or
    ``clang++`` on PATH), or None: the very helper the export module inlines."""
    from shapescript.codegen.export_rt import _ss_ex_find_cxx

    return _ss_ex_find_cxx()


def python_for_tracing(explicit: str | None = None, own: str | None = None) -> str:
    """The Python that traces: ``explicit`` (``--python``), else ``$SHAPESCRIPT_PYTHON``,
    else ``own``, else ``python3`` (``python`` on Windows). The ``shapescript`` command
    passes its own Python as ``own``, as the book's "sets SHAPESCRIPT_PYTHON to its own
    Python" says, without changing the environment of the process it runs in."""
    return explicit or os.environ.get("SHAPESCRIPT_PYTHON") or own or (
        "python" if os.name == "nt" else "python3")


@dataclass
class RunResult:
    """How a run ended. ``status``: ``ok``; ``torch`` (torch's error: ``message`` and
    ``location``, ``(file, line, column)`` or None); ``export`` (the export step's own
    error, such as no C++ compiler); ``no-python`` (``python`` can't be run);
    ``no-torch`` (it has no torch or einops); ``crash`` (anything else: ``stderr``)."""

    status: str
    message: str = ""
    location: tuple[str, int, int] | None = None
    stderr: str = ""
    traceback: str = ""


def run_module(source: str, output: str, *, python: str, aoti: bool = False,
               name: str = "export_module", optimize: bool = False) -> RunResult:
    """Runs the export module ``source`` with ``python`` to write ``output``; with
    ``optimize``, as ``python -O`` (so ``debug`` checks are left out)."""
    folder = tempfile.mkdtemp(prefix="shapescript-export-")
    try:
        module = os.path.join(folder, f"{name}.py")
        err_file = os.path.join(folder, "error.json")
        with open(module, "w", encoding="utf-8", newline="\n") as f:
            f.write(source)
        cmd = [python] + (["-O"] if optimize else []) + [
            module, "-o", os.path.abspath(output), "--error-json", err_file]
        if aoti:
            cmd.append("--aoti")
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, errors="replace")
        except (FileNotFoundError, PermissionError) as err:
            return RunResult("no-python", f"cannot run `{python}`: {err.strerror or err}")
        if proc.returncode == 0:
            return RunResult("ok", stderr=proc.stderr)
        if os.path.exists(err_file):
            with open(err_file, encoding="utf-8") as f:
                data = json.load(f)
            loc = data.get("location")
            return RunResult("torch" if data.get("torch", True) else "export",
                             data.get("message", ""), tuple(loc) if loc else None,
                             proc.stderr, data.get("traceback", ""))
        for mod in ("torch", "einops"):
            if f"No module named '{mod}'" in proc.stderr:
                return RunResult("no-torch", f"`{python}` can't import {mod}",
                                 stderr=proc.stderr)
        return RunResult("crash", f"`{python}` exited with code {proc.returncode}",
                         stderr=proc.stderr)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
