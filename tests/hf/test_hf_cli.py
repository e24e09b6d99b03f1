"""``shapescript export --hf`` and ``shapescript check --vllm``, as a user runs them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from hf_helpers import LLAMA


def shapescript(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shapescript_cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600, env=dict(os.environ))


@pytest.mark.slow
def test_export_hf_writes_a_folder_from_a_checkpoint(tmp_path):
    from shapescript import api

    from shapescript_export.model_export import load_model_source, make_weights

    src = load_model_source(LLAMA)
    ckpt = tmp_path / "llama.safetensors"
    api.save_checkpoint(str(ckpt), make_weights(src, seed=9))
    out = tmp_path / "llama_hf"
    r = shapescript("export", LLAMA, "--hf", str(out), "--weights", str(ckpt),
                    "--max-len", "64", "--vllm")
    assert r.returncode == 0, r.stderr
    # Off a terminal, no phases: the degrees it proved, then the one summary line.
    degrees = ("note: tensor-parallel degrees 1, 2, pipeline degrees 1, 2 (layered "
               "layout)\n")
    assert r.stdout == "" and re.fullmatch(rf"{re.escape(degrees)}wrote {re.escape(str(out))} "
                                           r"\(\S+ [kMG]?B\) in \S+ s\n", r.stderr), r.stderr
    config = json.load(open(out / "config.json"))
    assert config["max_position_embeddings"] == 64
    assert config["shapescript"]["vllm"] is True
    # The checkpoint's stacked fields, each layer's slice in its module.
    from safetensors.torch import load_file

    saved, folder = load_file(str(ckpt)), load_file(str(out / "model.safetensors"))
    assert "model.wq" not in folder
    for layer in (0, 1):
        for field, name in (("wq", "self_attn.q_proj"), ("w_down", "mlp.down_proj"),
                            ("attn_norm", "input_layernorm")):
            want = [v for k, v in saved.items() if k.endswith(field)][0][layer]
            assert folder[f"model.layers.{layer}.{name}.weight"].equal(want)
    assert folder["model.norm.weight"].equal([v for k, v in saved.items()
                                              if k.endswith(".norm") or k == "norm"][0])


def test_check_vllm_reports_the_serving_rules(tmp_path):
    from shapescript_cli.main import main

    text = open(LLAMA, encoding="utf-8").read().replace(
        "    return x + feed_forward(m, x, l)\n",
        "    return x + feed_forward(m, x, l) - mean(x, over=n)\n")
    path = tmp_path / "llama.ss"
    path.write_text(text)
    runner = CliRunner()
    plain = runner.invoke(main, ["check", str(path)], prog_name="shapescript")
    assert plain.exit_code == 0
    r = runner.invoke(main, ["check", "--vllm", str(path)], prog_name="shapescript")
    assert r.exit_code == 1
    assert "error[E3304]: `mean` across positions" in r.output
    clean = runner.invoke(main, ["check", "--vllm", LLAMA], prog_name="shapescript")
    assert clean.exit_code == 0, clean.output


def test_a_missing_hf_extra_names_the_install(monkeypatch, tmp_path):
    from shapescript_cli.commands import export as export_cmd
    from shapescript_cli.main import main

    real = export_cmd.installed_targets
    monkeypatch.setattr(export_cmd, "installed_targets",
                        lambda: {k: v for k, v in real().items() if k != "hf"})
    r = CliRunner().invoke(main, ["export", LLAMA, "--hf", str(tmp_path / "o")],
                           prog_name="shapescript")
    assert r.exit_code == 2
    assert "`--hf` needs pip install 'shapescript[hf]'" in r.stderr
    assert not (tmp_path / "o").exists()


def test_shapescript_export_hf_is_the_plugins_function():
    import shapescript

    import shapescript_hf

    assert shapescript.export_hf.__module__ == shapescript_hf.export_hf.__module__
    assert shapescript.export_hf.__name__ == "export_hf"
