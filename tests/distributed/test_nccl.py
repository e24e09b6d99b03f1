"""``run --nproc-per-node`` on CUDA GPUs: NCCL carries the collectives on the device, each
rank on its own GPU (``cuda`` is ``cuda:LOCAL_RANK``). A one-GPU smoke test and a test
for machines with two GPUs or more, skipped elsewhere; and, everywhere, the choice of
backend that ``--devices`` makes."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import torch

from dist_helpers import run_shapescript

SPOTTER = Path(__file__).resolve().parents[2] / "examples" / "spotter"

# Each rank brings a host tensor to its device through `as` and sums it over the ranks.
SUM = """\
import python torch
import python placed

fn main():
    x = torch.ones(4) as [4]
    torch.distributed.all_reduce(x)
    print(placed.summed(x))
"""
WHERE = ("import torch\n\ndef summed(x):\n"
         "    return f'{torch.distributed.get_backend()} {x.device} {int(x[0])}'\n")


def _program(folder: Path) -> Path:
    (folder / "sum.ss").write_text(SUM)
    (folder / "placed.py").write_text(WHERE)
    return folder


@pytest.mark.cuda
def test_one_rank_on_one_gpu_uses_nccl(tmp_path):
    r = run_shapescript("run", "--nproc-per-node", "1", "--devices", "cuda", "sum.ss",
                        cwd=_program(tmp_path))
    assert r.returncode == 0, r.stderr
    backend, device, total = r.stdout.split()
    assert "nccl" in backend and device == "cuda:0" and total == "1"


@pytest.mark.cuda(gpus=2)
def test_two_ranks_each_on_its_own_gpu(tmp_path):
    r = run_shapescript("run", "--nproc-per-node", "2", "--all-ranks", "--devices", "cuda",
                        "sum.ss", cwd=_program(tmp_path))
    assert r.returncode == 0, r.stderr
    lines = sorted(r.stdout.splitlines())
    assert [re.sub(r"\S*nccl\S*", "nccl", line) for line in lines] == [
        "[rank0]: nccl cuda:0 2", "[rank1]: nccl cuda:1 2"]


@pytest.mark.cuda(gpus=2)
def test_train_ss_on_two_gpus(tmp_path):
    for name in ("train.ss", "spotter.ss", "shapes.py"):
        shutil.copy(SPOTTER / name, tmp_path / name)
    r = run_shapescript("run", "--nproc-per-node", "2", "--devices", "cuda", "train.ss", "1",
                        cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    accuracy = float(re.search(r"^test accuracy: ([\d.]+)%$", r.stdout, re.M).group(1))
    assert accuracy > 50.0
    assert (tmp_path / "spotter.safetensors").exists()


def test_devices_cpu_keeps_the_ranks_off_the_gpus(monkeypatch):
    # On a GPU machine, `--devices cpu` ranks use gloo alone and claim no GPU.
    from shapescript.rt import distributed
    from shapescript.rt.device import devices

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.distributed, "is_nccl_available", lambda: True)
    assert distributed.backend() == "cpu:gloo,cuda:nccl"
    devices("cpu")
    assert distributed.backend() == "gloo"
    devices("cuda")
    assert distributed.backend() == "cpu:gloo,cuda:nccl"


def test_devices_cuda_without_cuda_is_refused_before_the_ranks_start(tmp_path):
    r = run_shapescript("run", "--nproc-per-node", "2", "--devices", "cuda[0]", "sum.ss",
                        cwd=_program(tmp_path), CUDA_VISIBLE_DEVICES="")
    assert r.returncode == 2
    assert r.stderr.startswith("error: --devices cuda[0]: ")
