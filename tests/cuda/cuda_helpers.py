"""What the CUDA tests share: the repository's folders, and ``shapescript`` in a
subprocess (the program's device is process-wide, and a crash inside torch must not end
the test run)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SPOTTER = EXAMPLES / "spotter"
BENCHMARKS = ROOT / "benchmarks"


def run_shapescript(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """``shapescript ARGS…`` in ``cwd``, as a user runs it."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-X", "faulthandler", "-m", "shapescript_cli", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def run_python(code: str, *, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """``python -c CODE`` in ``cwd`` (``-X faulthandler``: a native crash shows where)."""
    return subprocess.run([sys.executable, "-X", "faulthandler", "-c", code], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
