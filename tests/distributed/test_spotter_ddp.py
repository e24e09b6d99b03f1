"""The spotter's ``train.ss`` on two processes (gloo, CPU) against one process: the same
global batches give the same weights (within 1e-5) and the same test accuracy; the
checkpoint is written once, by rank 0, and loads in a single process. The same with the
fields sharded among the ranks (``--fsdp``)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from dist_helpers import run_shapescript

SPOTTER = Path(__file__).resolve().parents[2] / "examples" / "spotter"
EPOCHS = "1"          # one pass of 32 updates keeps the test short


def _spotter_copy(folder: Path) -> Path:
    folder.mkdir()
    for name in ("train.ss", "spotter.ss", "shapes.py"):
        shutil.copy(SPOTTER / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """``train.ss 1`` on one process and on two, each in its own folder."""
    base = tmp_path_factory.mktemp("spotter")
    one, two = _spotter_copy(base / "one"), _spotter_copy(base / "two")
    r1 = run_shapescript("run", "train.ss", EPOCHS, cwd=one)
    assert r1.returncode == 0, r1.stderr
    r2 = run_shapescript("run", "--nproc-per-node", "2", "train.ss", EPOCHS, cwd=two)
    assert r2.returncode == 0, r2.stderr
    return (one, r1), (two, r2)


def _assert_loads_in_one_process(folder: Path) -> None:
    """``spotter.safetensors`` in ``folder`` loads into a ``Spotter`` in a fresh, single
    process (world size 1)."""
    script = (
        "import sys, shapescript\n"
        "from shapescript.importer import import_file\n"
        "sys.path.insert(0, '.')\n"
        "shapescript.install()\n"
        "train = import_file('train.ss', 'spotter_train')\n"
        "m = shapescript.load('spotter.safetensors', train.Spotter)\n"
        "print(type(m).__name__, tuple(m.w_e.shape), shapescript.rt.world_size())\n"
    )
    r = subprocess.run([sys.executable, "-c", script], cwd=folder, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "Spotter (16, 32) 1"


def _weights(folder: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(folder / "spotter.safetensors"))


def test_two_processes_end_with_one_process_weights(runs):
    (one, _), (two, _) = runs
    a, b = _weights(one), _weights(two)
    assert sorted(a) == sorted(b) == ["0.cw1", "0.cw2", "0.tw1", "0.tw2", "0.w_e", "0.w_h"]
    for key in a:
        assert torch.allclose(a[key], b[key], rtol=0, atol=1e-5), key
    # and training moved them: the comparison isn't between two untouched inits
    from shapescript.rt.checkpoint import describe

    assert [m["type"] for m in describe(two / "spotter.safetensors")] == ["Spotter"]


def test_same_test_accuracy_and_global_loss(runs):
    (_, r1), (_, r2) = runs
    acc = [re.search(r"^test accuracy: (.*)$", r.stdout, re.M).group(1) for r in (r1, r2)]
    assert acc[0] == acc[1]
    # value_and_grad's value is the global batch's loss on both
    loss = [re.findall(r"^step (\d+)(?:/\d+)?: loss ([\d.e-]+)", r.stdout, re.M)
            for r in (r1, r2)]
    assert [s for s, _ in loss[0]] == [s for s, _ in loss[1]] == ["0", "20", "31"]
    for (_, x), (_, y) in zip(*loss):
        assert abs(float(x) - float(y)) <= 1e-3 * abs(float(x))


def test_rank0_alone_prints_and_reports(runs):
    (_, r1), (_, r2) = runs
    for r in (r1, r2):
        assert r.stdout.count("test accuracy:") == 1
        assert r.stdout.count("saved spotter.safetensors; reloaded, it makes the same "
                              "predictions") == 1
        assert "[rank" not in r.stdout


def test_checkpoint_written_once_loads_in_one_process(runs):
    (_, _), (two, _) = runs
    leftovers = [p.name for p in two.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
    _assert_loads_in_one_process(two)


@pytest.fixture(scope="module")
def fsdp(runs, tmp_path_factory):
    """``train.ss 1`` on two processes with sharded fields."""
    folder = _spotter_copy(tmp_path_factory.mktemp("spotter") / "fsdp")
    r = run_shapescript("run", "--fsdp", "--nproc-per-node", "2", "train.ss", EPOCHS, cwd=folder)
    assert r.returncode == 0, r.stderr
    return folder, r


def test_fsdp_ends_with_one_process_weights_and_accuracy(runs, fsdp):
    (one, r1), _ = runs
    folder, r = fsdp
    a, b = _weights(one), _weights(folder)
    assert sorted(a) == sorted(b)
    for key in a:
        assert a[key].shape == b[key].shape
        assert torch.allclose(a[key], b[key], rtol=0, atol=1e-5), key
    acc = [re.search(r"^test accuracy: (.*)$", x.stdout, re.M).group(1) for x in (r1, r)]
    assert acc[0] == acc[1]
    assert r.stdout.count("saved spotter.safetensors; reloaded, it makes the same "
                          "predictions") == 1


def test_fsdp_checkpoint_loads_in_one_process(fsdp):
    folder, _ = fsdp
    _assert_loads_in_one_process(folder)
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp")] == []
