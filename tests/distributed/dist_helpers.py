"""Running ``shapescript`` (and torchrun) in a subprocess for the many-process tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# A hang guard, not a speed test: a run that needs this long is stuck.
HANG_GUARD_S = 240


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a launched run: torchrun's variables of an enclosing run, if
    any, removed, so the child launches its own ranks."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                        "TORCHELASTIC_RUN_ID", "GROUP_RANK", "LOCAL_WORLD_SIZE")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def run_shapescript(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """``shapescript ARGS…`` in ``cwd``."""
    cmd = [sys.executable, "-m", "shapescript_cli", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                          timeout=HANG_GUARD_S, env=child_env(**env))


def run_torchrun(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m torch.distributed.run ARGS…`` (``torchrun``) in ``cwd``."""
    cmd = [sys.executable, "-m", "torch.distributed.run", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                          timeout=HANG_GUARD_S, env=child_env())
