"""`shapescript port` on plain modules (`module:factory`, through the exported graph),
the command, and its refusals: each names the module and the operation, exits 1 (2 for
an error of the command) and writes nothing."""

from __future__ import annotations

import os

import pytest
import torch
from click.testing import CliRunner

from shapescript import api

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models.py")


def _run(*args: str):
    from shapescript_cli.main import main

    return CliRunner().invoke(main, list(args))


def test_a_small_cnn_ports_through_its_graph(tmp_path):
    import models
    from shapescript_port import port

    out, weights = tmp_path / "cnn.ss", tmp_path / "cnn.safetensors"
    report = port(f"{MODELS}:cnn", str(out), weights=str(weights))
    text = out.read_text(encoding="utf-8")
    assert api.check_file(str(out)).ok
    assert "extern" not in text and report.coverage.fraction == 1.0
    assert "conv2d(x, m.stem_weight, m.stem_bias, padding=1)" in text
    assert "reduce(relu_y, b c (h p) (w q) -> b c h w, max, p=2, q=2)" in text
    assert "= pool + conv2" in text  # the residual
    assert "fn forward(m: SmallCNN, x: [b 3 16 16]) -> [b 10]:" in text
    # The batch is dynamic: another batch size gives the source's output.
    source, _ = models.cnn()
    program = api.import_file(str(out), "_port_test_cnn")
    m = api.load_checkpoint(str(weights), program.SmallCNN)
    x = torch.randn(5, 3, 16, 16)
    with torch.no_grad():
        assert torch.allclose(program.forward(m, x), source(x), rtol=0, atol=1e-5)


def test_an_op_without_a_built_in_becomes_a_typed_extern_with_a_comment(tmp_path):
    from shapescript_port import port

    out = tmp_path / "erf.ss"
    report = port(f"{MODELS}:erf", str(out))
    text = out.read_text(encoding="utf-8")
    assert 'extern fn aten_erf(x0: [b 6]) -> [b 6] = "torch.erf"' in text
    assert "# extern: `aten.erf.default` has no built-in that fits" in text
    assert report.coverage.externs == ("aten.erf.default",)
    assert "extern fallbacks: 1 (aten.erf.default)" in report.summary()


def test_the_command_ports_and_reports(tmp_path):
    out = tmp_path / "cnn.ss"
    r = _run("port", f"{MODELS}:cnn", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith(f"wrote {out}: model SmallCNN, matches the source to ")
    assert "coverage: " in r.stdout and out.exists()


@pytest.mark.parametrize("factory,code,named", [
    ("branchy", "E3601", "module `Branchy`, operation `if x.sum() > 0:` at models.py:"),
    ("nonzero", "E3602", "operation `aten.nonzero.default`"),
])
def test_what_cant_be_ported_is_named_and_nothing_is_written(tmp_path, factory, code, named):
    out, weights = tmp_path / "m.ss", tmp_path / "m.safetensors"
    r = _run("port", f"{MODELS}:{factory}", "-o", str(out), "--weights", str(weights))
    assert r.exit_code == 1
    assert r.stderr.startswith(f"error[{code}]: ") and named in r.stderr
    assert os.listdir(tmp_path) == []


def test_a_port_that_differs_names_the_first_part_and_writes_nothing(tmp_path):
    out = tmp_path / "g.ss"
    r = _run("port", "GPT2LMHeadModel", "-c", "vocab_size=61", "-c", "n_embd=32",
             "-c", "n_layer=2", "-c", "n_head=4", "-c", "scale_attn_by_inverse_layer_idx=true",
             "-c", "bos_token_id=0", "-c", "eos_token_id=0",
             "-o", str(out), "--weights", str(tmp_path / "g.safetensors"))
    assert r.exit_code == 1
    assert r.stderr.startswith("error[E3603]: the port differs from the source first at the "
                               "attention of block 1: `attention` against module "
                               "`transformer.h.1.attn`")
    assert os.listdir(tmp_path) == []


def test_an_unrecognised_layout_is_named(tmp_path):
    r = _run("port", "LlamaForCausalLM", "-c", "hidden_size=32", "-c", "num_attention_heads=4",
             "-c", "intermediate_size=48", "-c", "num_hidden_layers=1", "-c", "vocab_size=61",
             "-c", 'rope_parameters={"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0}',
             "-o", str(tmp_path / "l.ss"))
    assert r.exit_code == 1
    assert r.stderr.startswith("error[E3604]: rotary scaling `linear` isn't written yet")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("source,said", [
    ("NoSuchForCausalLM", "`NoSuchForCausalLM` is neither a folder"),
    (f"{MODELS}:not_a_pair", "must return (an nn.Module, its example inputs), not Linear"),
    (f"{MODELS}:missing", "has no function `missing`"),
])
def test_a_source_that_cant_be_loaded_is_an_error_of_the_command(tmp_path, source, said):
    r = _run("port", source, "-o", str(tmp_path / "x.ss"))
    assert r.exit_code == 2
    assert r.stderr.startswith("error[E3605]: ") and said in r.stderr


def test_shapescript_port_is_the_packages_function():
    import shapescript
    import shapescript_port

    assert shapescript.port is shapescript_port.port
