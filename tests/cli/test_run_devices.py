"""``shapescript run --devices``: the program's device from the command line, and host
tensors reaching it through ``as`` (counted). CUDA itself is tested in ``tests/cuda``;
here the ``meta`` device stands in for an accelerator: a tensor made on the CPU in Python
must end up there, as it would on ``cuda``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# A program whose file says `devices cuda`: it runs anywhere only through `--devices`.
PROGRAM = """\
devices cuda

import python torch
import python shapescript
import python placed

fn double(x: [n]) -> [n] = x * 2.0

fn main():
    x = torch.ones(3) as [3]
    pair = (torch.zeros(2), torch.ones(4)) as ([2], [4])
    y = double(x)
    print(placed.devices(y, pair[0], pair[1]))
    print("moves, bytes:", shapescript.rt.host_transfers())
"""
WHERE = "def devices(*tensors):\n    return ' '.join(str(t.device) for t in tensors)\n"


def run(tmp_path: Path, *args: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess:
    (tmp_path / "prog.ss").write_text(PROGRAM)
    (tmp_path / "placed.py").write_text(WHERE)
    full = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "shapescript_cli", "run", *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, env=full)


def test_devices_cpu_wins_over_the_files_line(tmp_path):
    r = run(tmp_path, "--devices", "cpu", "prog.ss")
    assert r.returncode == 0, r.stderr
    # Nothing moves when the program's device is the CPU.
    assert r.stdout == "cpu cpu cpu\nmoves, bytes: (0, 0)\n"


def test_host_tensors_move_to_the_programs_device_at_their_as(tmp_path):
    r = run(tmp_path, "--devices", "meta", "--value-checks", "never", "prog.ss")
    assert r.returncode == 0, r.stderr
    # Three tensors, 3 + 2 + 4 floats of 4 bytes: each `as` moved its own, once.
    assert r.stdout == "meta meta meta\nmoves, bytes: (3, 36)\n"


def test_the_move_is_not_a_check_it_happens_with_checks_off(tmp_path):
    r = run(tmp_path, "--devices", "meta", "--checks", "never", "--value-checks", "never",
            "prog.ss")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "meta meta meta\nmoves, bytes: (3, 36)\n"


def test_devices_cuda_without_cuda_is_a_clear_error(tmp_path):
    # No GPU visible, even on a machine that has one.
    r = run(tmp_path, "--devices", "cuda", "prog.ss", env={"CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    assert r.stderr.startswith("error: --devices cuda: CUDA is not available here (")
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("spec", ["cuda[1]", "cuda:0"])
def test_an_indexed_cuda_without_cuda_is_the_same_error(tmp_path, spec):
    r = run(tmp_path, "--devices", spec, "prog.ss", env={"CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 2
    assert r.stderr.startswith(f"error: --devices {spec}: CUDA is not available here (")


def test_mps_where_there_is_none_is_a_clear_error(tmp_path):
    import torch

    if torch.backends.mps.is_available():
        pytest.skip("this machine has MPS")
    r = run(tmp_path, "--devices", "mps", "prog.ss")
    assert r.returncode == 2
    assert r.stderr.startswith("error: --devices mps: MPS is not available here (torch ")


def test_a_malformed_device_is_a_usage_error(tmp_path):
    r = run(tmp_path, "--devices", "tpu", "prog.ss")
    assert r.returncode == 2
    assert "Invalid value for --devices: not a device: 'tpu'" in r.stderr
    assert "Traceback" not in r.stderr


def test_a_files_cuda_line_without_cuda_is_a_clear_error(tmp_path):
    r = run(tmp_path, "prog.ss", env={"CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    assert r.stderr.startswith("error: prog.ss: its `devices` line can't be used: CUDA is "
                               "not available here (")
    assert r.stderr.rstrip().endswith("choose another device with --devices "
                                      "(e.g. --devices cpu)")


def test_devices_passes_to_each_rank():
    from shapescript_cli.commands import _launch

    args = _launch.worker_args("always", None, "train.ss", ["2"], (), "cuda")
    assert args == ["-m", "shapescript_cli", "run", "--devices", "cuda", "--checks", "always",
                    "train.ss", "2"]


def test_one_gpu_for_many_ranks_is_refused():
    from shapescript_cli.commands import _launch

    assert _launch.devices_problem("cuda[1]", 2) == (
        "names one GPU for all 2 ranks; write `cuda`, and each rank gets its own "
        "(cuda:LOCAL_RANK)")
    assert _launch.devices_problem("cuda[1]", 1) is None
    assert _launch.devices_problem("cpu", 4) is None


@pytest.mark.slow
def test_train_ss_runs_with_devices_cpu(tmp_path):
    # The command a GPU user runs with `cuda`, here on the CPU: one pass of 32 updates.
    spotter = Path(__file__).resolve().parents[2] / "examples" / "spotter"
    for name in ("spotter.ss", "train.ss", "shapes.py"):
        shutil.copy(spotter / name, tmp_path / name)
    r = subprocess.run([sys.executable, "-m", "shapescript_cli", "run", "--devices", "cpu",
                        "train.ss", "1"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=600, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert r.returncode == 0, r.stderr
    assert re.search(r"^test accuracy: [\d.]+%$", r.stdout, re.M), r.stdout
    assert "reloaded, it makes the same predictions" in r.stdout
    reports = (tmp_path / "spotter.jsonl").read_text().splitlines()
    assert [json.loads(line)["step"] for line in reports] == [0, 20, 31]
