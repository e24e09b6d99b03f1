"""Exporting for CUDA: a `.pt2` program made with `--devices cuda` loads and runs on the
GPU; an AOTInductor package for CUDA too, loaded in a subprocess, since loading CUDA AOTI
packages has crashed inside torch itself on one machine (torch 2.11): where torch's own
package crashes as well, the test is skipped, saying so."""

from __future__ import annotations

import shutil
import textwrap

import pytest

from cuda_helpers import EXAMPLES, run_python, run_shapescript

pytestmark = pytest.mark.cuda
torch = pytest.importorskip("torch")

# The attention example's inputs, and its result computed on the CPU by the checked entry.
INPUTS = textwrap.dedent("""\
    import torch
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, 17, 64, generator=g)
    w_qkv = torch.randn(64, 192, generator=g) / 8
    w_o = torch.randn(64, 64, generator=g) / 8
""")


@pytest.fixture
def attention(tmp_path):
    shutil.copy(EXAMPLES / "attention.ss", tmp_path / "attention.ss")
    return tmp_path


def _expected(folder):
    """The checked entry's result on the CPU, from a subprocess (the device is
    process-wide there, not here)."""
    r = run_python("import shapescript; shapescript.install(); import attention\n" + INPUTS +
                   "torch.save(attention.causal_attention(x, w_qkv, w_o), 'want.pt')",
                   cwd=folder)
    assert r.returncode == 0, r.stderr
    return torch.load(folder / "want.pt")


def test_pt2_for_cuda_loads_and_runs_on_the_gpu(attention):
    r = run_shapescript("export", "--devices", "cuda", "attention.ss", "-o", "attn.pt2",
                        cwd=attention)
    assert r.returncode == 0, r.stderr
    program = torch.export.load(str(attention / "attn.pt2"))
    ns: dict = {}
    exec(INPUTS, ns)
    got = program.module()(ns["x"].cuda(), ns["w_qkv"].cuda(), ns["w_o"].cuda())
    assert got.device.type == "cuda"
    torch.testing.assert_close(got.cpu(), _expected(attention), rtol=1e-4, atol=1e-4)


LOAD_OURS = INPUTS + textwrap.dedent("""\
    import torch._inductor
    runner = torch._inductor.aoti_load_package("attn.pt2")
    out = runner(x.cuda(), w_qkv.cuda(), w_o.cuda())
    assert out.device.type == "cuda", out.device
    torch.save(out.cpu(), "got.pt")
""")

# torch's own AOTInductor package for CUDA, without ShapeScript: whether loading one works
# on this machine at all.
TORCH_OWN = textwrap.dedent("""\
    import torch, torch._inductor
    lin = torch.nn.Linear(8, 8).cuda()
    ep = torch.export.export(lin, (torch.randn(2, 8, device="cuda"),))
    path = torch._inductor.aoti_compile_and_package(ep, package_path="own.pt2")
    runner = torch._inductor.aoti_load_package(path)
    print(runner(torch.randn(2, 8, device="cuda")).shape)
""")


@pytest.mark.slow
def test_aoti_package_for_cuda_loads_and_runs_on_the_gpu(attention):
    r = run_shapescript("export", "--devices", "cuda", "--aoti", "attention.ss", "-o",
                        "attn.pt2", cwd=attention, timeout=480)
    assert r.returncode == 0, r.stderr
    loaded = run_python(LOAD_OURS, cwd=attention)
    if loaded.returncode < 0 or "Fatal Python error" in loaded.stderr:
        own = run_python(TORCH_OWN, cwd=attention, timeout=480)
        if own.returncode != 0:
            pytest.skip(f"loading torch's own AOTInductor package for CUDA fails here too "
                        f"(exit {own.returncode}, torch {torch.__version__}): "
                        f"{_last_line(own.stderr)}")
    assert loaded.returncode == 0, loaded.stderr
    torch.testing.assert_close(torch.load(attention / "got.pt"), _expected(attention),
                               rtol=1e-4, atol=1e-4)


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no output"
