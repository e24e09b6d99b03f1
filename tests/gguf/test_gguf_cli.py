"""``shapescript export --gguf`` and ``shapescript check --gguf``, as a user runs them."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import gguf
import pytest
from gguf_helpers import model_path, model_source
from shapescript_gguf.targets import NAMES

pytestmark = pytest.mark.slow


def _shapescript(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shapescript_cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "GGML_NO_BACKTRACE": "1"})


def test_export_writes_the_llama_example(tmp_path):
    out = tmp_path / "llama.gguf"
    r = _shapescript("export", model_path("examples/llama.ss"), "--gguf", str(out),
                     "--seed", "4", "--dtype", "float16", "--max-len", "256")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and re.fullmatch(rf"wrote {re.escape(str(out))} \(\S+ [kMG]?B, llama\) "
                                           r"in \S+ s\n", r.stderr), r.stderr
    reader = gguf.GGUFReader(str(out))
    assert reader.fields["llama.context_length"].contents() == 256
    assert reader.fields["general.file_type"].contents() == int(gguf.LlamaFileType.MOSTLY_F16)


def test_export_refuses_with_exit_1_a_reason_per_architecture_and_no_file(tmp_path):
    # (the other refusals, through the target in-process: test_gguf_export.py)
    name = "gpt2_exact_gelu.ss"
    out = tmp_path / "m.gguf"
    r = _shapescript("export", model_path(name), "--gguf", str(out))
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert lines[0] == (f"error: {model_path(name)} can't be written as a GGUF file: no "
                        "architecture llama.cpp runs computes what it computes")
    # a line for each architecture, in the order they are tried
    assert [line.split(":")[0] for line in lines[1:]] == [f"  {a}" for a in NAMES]
    assert lines[3].startswith("  llama: a different norm: ")
    assert lines[-1].startswith(f"  gpt2: {model_path(name)}:36: the model computes GELU "
                                "exactly (with erf), where llama.cpp's gpt2 uses the tanh "
                                "approximation: ")
    assert r.stdout == ""
    assert os.listdir(tmp_path) == []


def test_export_command_errors_exit_2(tmp_path):
    r = _shapescript("export", model_path("llama_halves.ss"), "--gguf",
                     str(tmp_path / "m.gguf"), "--weights", str(tmp_path / "none.safetensors"))
    assert r.returncode == 2
    assert r.stderr.startswith("error: --weights ") and "no such file" in r.stderr
    assert os.listdir(tmp_path) == []


def test_check_gguf_reports_the_serving_rules_without_exporting(tmp_path):
    src = model_source("llama_halves.ss").replace(
        "|> linear(m.output)", "|> linear(m.output) |> softmax(over=V)").replace(
        "-> [b n V] Logit over V:", "-> [b n V]:")
    (tmp_path / "m.ss").write_text(src)
    r = _shapescript("check", "--gguf", str(tmp_path / "m.ss"))
    assert r.returncode == 1
    assert "error[E3302]" in r.stdout + r.stderr
    # a plain check reports none of them
    assert _shapescript("check", str(tmp_path / "m.ss")).returncode == 0
    assert os.listdir(tmp_path) == ["m.ss"]
