"""A trained model to a .pt2 program: for a function that takes the model first,
--weights/--seed make the model's fields the program's parameters, and its inputs are
the data alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
TRAIN = str(ROOT / "examples" / "spotter" / "train.ss")
LLAMA = str(ROOT / "examples" / "llama.ss")


def shapescript(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shapescript_cli", *args], capture_output=True,
                          text=True, timeout=600, env=dict(os.environ))


def user_inputs(ep) -> list[str]:
    return [s.arg.name for s in ep.graph_signature.input_specs if s.kind.name == "USER_INPUT"]


@pytest.mark.slow
def test_the_spotter_from_a_checkpoint(tmp_path):
    from shapescript import api

    from shapescript_export.model_export import load_model_source, make_weights

    src = load_model_source(TRAIN, "guess")
    model = make_weights(src, seed=4)
    ckpt = tmp_path / "spotter.safetensors"
    api.save_checkpoint(str(ckpt), model)
    out = tmp_path / "guess.pt2"
    r = shapescript("export", TRAIN, "--fn", "guess", "--weights", str(ckpt), "-o", str(out))
    assert r.returncode == 0, r.stderr
    ep = torch.export.load(str(out))
    assert user_inputs(ep) == ["img"]
    assert [n for n, _ in ep.named_parameters()] == list(src.fields)
    img = torch.randint(0, 256, (6, 1, 16, 16), dtype=torch.uint8)
    assert ep.module()(img).tolist() == src.run(model, img).tolist()


@pytest.mark.slow
def test_the_python_api_with_a_seed(tmp_path):
    import shapescript

    from shapescript_export.model_export import load_model_source, make_weights

    ep = shapescript.export(LLAMA, "forward", str(tmp_path / "llama.pt2"), seed=3)
    assert user_inputs(ep) == ["ids", "pos"]
    src = load_model_source(LLAMA)
    model = make_weights(src, seed=3)
    prog = torch.export.load(str(tmp_path / "llama.pt2")).module()
    for b, n in [(1, 1), (2, 9)]:
        ids = torch.randint(0, 64, (b, n))
        pos = torch.arange(n).expand(b, n)
        want = src.run(model, ids, pos)
        assert (prog(ids, pos) - want).abs().max() <= 1e-5 * want.abs().max()


def test_weights_for_a_function_without_a_model(tmp_path):
    attention = str(ROOT / "examples" / "attention.ss")
    r = shapescript("export", attention, "--weights", str(tmp_path / "w.safetensors"),
                    "-o", str(tmp_path / "a.pt2"))
    assert r.returncode == 2
    assert "--weights" in r.stderr and "takes the model first" in r.stderr
    assert not (tmp_path / "a.pt2").exists()


def test_a_missing_checkpoint(tmp_path):
    r = shapescript("export", TRAIN, "--fn", "guess", "--weights", str(tmp_path / "nope.st"),
                    "-o", str(tmp_path / "g.pt2"))
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "g.pt2").exists()
