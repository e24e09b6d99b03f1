"""``shapescript export --gguf`` and ``shapescript check --gguf``, as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys

import gguf
import pytest

from gguf_helpers import model_path

pytestmark = pytest.mark.slow


def _shapescript(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shapescript_cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GGML_NO_BACKTRACE": "1"})


def test_export_writes_the_llama_example(tmp_path):
    out = tmp_path / "llama.gguf"
    r = _shapescript("export", model_path("examples/llama.ss"), "--gguf", str(out),
                     "--seed", "4", "--dtype", "float16", "--max-len", "256")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"wrote {out} (llama)\n"
    reader = gguf.GGUFReader(str(out))
    assert reader.fields["llama.context_length"].contents() == 256
    assert reader.fields["general.file_type"].contents() == int(gguf.LlamaFileType.MOSTLY_F16)


@pytest.mark.parametrize("name,reason", [
    ("gpt2_exact_gelu.ss", "  gpt2: the model computes GELU exactly (with erf), where "
                           "llama.cpp's gpt2 uses the tanh approximation: "),
    ("llama_layernorm.ss", "  llama: a different norm: the model normalizes with layer_norm, "
                           "where llama.cpp's llama uses rms_norm"),
    ("llama_extra_tensor.ss", "  llama: a different number of tensors: llama.cpp's llama has "
                              "9 per block and 3 others"),
])
def test_export_refuses_with_exit_1_a_reason_per_architecture_and_no_file(tmp_path, name,
                                                                          reason):
    out = tmp_path / "m.gguf"
    r = _shapescript("export", model_path(name), "--gguf", str(out))
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert lines[0] == (f"error: {model_path(name)} can't be written as a GGUF file: no "
                        "architecture llama.cpp runs computes what it computes")
    assert [line[:8] for line in lines[1:]] == ["  llama:", "  gpt2: "]
    assert any(line.startswith(reason) for line in lines[1:])
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert os.listdir(tmp_path) == []


def test_export_with_arch_tries_that_one_only(tmp_path):
    r = _shapescript("export", model_path("llama_halves.ss"), "--gguf",
                     str(tmp_path / "m.gguf"), "--arch", "gpt2")
    assert r.returncode == 1
    assert r.stderr.splitlines()[1:] == [
        "  gpt2: a different norm: the model normalizes with rms_norm, where llama.cpp's "
        "gpt2 uses layer_norm"]


def test_export_command_errors_exit_2(tmp_path):
    r = _shapescript("export", model_path("llama_halves.ss"), "--gguf",
                     str(tmp_path / "m.gguf"), "--weights", str(tmp_path / "none.safetensors"))
    assert r.returncode == 2
    assert r.stderr.startswith("error: --weights ") and "no such file" in r.stderr
    r = _shapescript("export", model_path("llama_halves.ss"), "--gguf",
                     str(tmp_path / "m.gguf"), "--fn", "decode")
    assert r.returncode == 2 and r.stderr.startswith("error: ")
    assert os.listdir(tmp_path) == []


def test_export_reports_the_serving_rules_as_errors(tmp_path):
    src = open(model_path("llama_halves.ss")).read().replace(
        "|> linear(m.output)", "|> linear(m.output) |> softmax(over=V)").replace(
        "-> [b n V] Logit over V:", "-> [b n V]:")
    (tmp_path / "m.ss").write_text(src)
    r = _shapescript("export", str(tmp_path / "m.ss"), "--gguf", str(tmp_path / "m.gguf"))
    assert r.returncode == 1
    assert r.stderr.startswith("error[E3302]: ")
    assert not (tmp_path / "m.gguf").exists()


def test_check_gguf_reports_the_serving_rules_without_exporting(tmp_path):
    r = _shapescript("check", "--gguf", model_path("examples/gpt2.ss"))
    assert r.returncode == 0, r.stderr
    src = open(model_path("llama_halves.ss")).read().replace(
        "|> linear(m.output)", "|> linear(m.output) |> softmax(over=V)").replace(
        "-> [b n V] Logit over V:", "-> [b n V]:")
    (tmp_path / "m.ss").write_text(src)
    r = _shapescript("check", "--gguf", str(tmp_path / "m.ss"))
    assert r.returncode == 1
    assert "error[E3302]" in r.stdout + r.stderr
    # a plain check reports none of them
    assert _shapescript("check", str(tmp_path / "m.ss")).returncode == 0
    assert os.listdir(tmp_path) == ["m.ss"]
