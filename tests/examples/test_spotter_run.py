"""The book's chapter 10 end to end: ``shapescript run train.py`` then ``check.py``,
with the real compiler, in a copy of ``examples/spotter``."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

SPOTTER = pathlib.Path(__file__).parents[2] / "examples" / "spotter"


def shapescript(*args, cwd):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="")
    cmd = [sys.executable, "-c", "from shapescript_cli.main import main; main()", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=900, env=env)


@pytest.mark.slow
def test_train_then_check(tmp_path):
    for name in ("spotter.ss", "shapes.py", "train.py", "check.py"):
        shutil.copy(SPOTTER / name, tmp_path / name)
    r = shapescript("run", "train.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [ln.split(":")[0] for ln in lines[:5]] == [f"step {s}" for s in (0, 50, 100, 150, 200)]
    accuracy = float(re.fullmatch(r"test accuracy: ([\d.]+)%", lines[5]).group(1))
    assert accuracy > 95.0
    assert lines[6].startswith("tensor([") and lines[7].startswith("tensor([[")
    assert (tmp_path / "weights.pt").exists()
    assert any(p.name.startswith("spotter.ss.") for p in (tmp_path / "__pycache__").iterdir())

    r = shapescript("run", "check.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"accuracy: {accuracy:.1f}%"
    assert lines[1].startswith("nudged: ")
    assert lines[2] == "torch.Size([500, 1, 7, 7])"

    # Widen the tokens without retraining: the first weight's `as` catches it (book ch. 10).
    src = (tmp_path / "spotter.ss").read_text()
    (tmp_path / "spotter.ss").write_text(src.replace("dim D = 32", "dim D = 48"))
    r = shapescript("run", "check.py", cwd=tmp_path)
    assert r.returncode != 0
    assert r.stderr.strip().splitlines()[-1] == (
        "ShapeError: spotter.ss:86:25: expected [P*P D] = (16, 48), "
        "got shape (16, 32)")
