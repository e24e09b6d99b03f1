"""export_gguf and the --gguf target: what the file holds, refusals, atomic writes."""

from __future__ import annotations

import os
import re

import gguf
import numpy as np
import pytest
import shapescript
import torch
from gguf_helpers import model_path, model_source
from shapescript_gguf import export_gguf
from shapescript_gguf.arch import permute_qk
from shapescript_gguf.errors import CommandError
from shapescript_gguf.source import load_source
from shapescript_gguf.target import TARGET


def _read(path) -> tuple[dict, dict]:
    r = gguf.GGUFReader(str(path))
    fields = {}
    for name, f in r.fields.items():
        if not f.types:
            continue
        if f.types[0] == gguf.GGUFValueType.STRING or f.types[0] != gguf.GGUFValueType.ARRAY:
            fields[name] = f.contents()
    return fields, {t.name: t for t in r.tensors}


def _array(t) -> np.ndarray:
    """A tensor read back as f32, in torch's [out, in] layout."""
    if t.tensor_type == gguf.GGMLQuantizationType.BF16:
        raw = torch.from_numpy(np.array(t.data).view(np.int16).copy()).view(torch.bfloat16)
        return raw.float().numpy().reshape(list(reversed([int(x) for x in t.shape])))
    return np.array(t.data, dtype=np.float32).reshape(list(reversed([int(x) for x in t.shape])))


def test_llama_file_holds_the_architecture_keys_and_the_weights(tmp_path):
    out = tmp_path / "llama.gguf"
    assert export_gguf(model_path("examples/llama.ss"), str(out), seed=3) == "llama"
    keys, tensors = _read(out)
    assert keys["general.architecture"] == "llama"
    assert keys["llama.block_count"] == 2 and keys["llama.embedding_length"] == 64
    assert keys["llama.attention.head_count"] == 4
    assert keys["llama.attention.head_count_kv"] == 2
    assert keys["llama.feed_forward_length"] == 128
    assert keys["llama.rope.dimension_count"] == 16
    assert keys["llama.rope.freq_base"] == 10000.0
    assert keys["llama.attention.layer_norm_rms_epsilon"] == pytest.approx(1e-5)
    assert keys["llama.context_length"] == 128  # P of pos: [b n] Index[P]
    assert keys["tokenizer.ggml.model"] == "gpt2"
    assert len(tensors) == 1 + 9 * 2 + 2
    m = load_source(model_path("examples/llama.ss")).model_class().init(seed=3)
    np.testing.assert_array_equal(_array(tensors["blk.1.ffn_gate.weight"]),
                                  m.w_gate[1].detach().numpy())
    np.testing.assert_array_equal(_array(tensors["output.weight"]), m.output.detach().numpy())
    assert tensors["blk.0.attn_norm.weight"].tensor_type == gguf.GGMLQuantizationType.F32


def test_halves_rotary_writes_reordered_query_and_key_rows_in_bf16(tmp_path):
    out = tmp_path / "h.gguf"
    export_gguf(model_path("llama_halves.ss"), str(out), seed=1, dtype="bfloat16",
                max_len=48)
    keys, tensors = _read(out)
    assert keys["llama.rope.freq_base"] == 500000.0
    assert keys["llama.context_length"] == 48
    assert keys["general.file_type"] == int(gguf.LlamaFileType.MOSTLY_BF16)
    q = tensors["blk.0.attn_q.weight"]
    assert q.tensor_type == gguf.GGMLQuantizationType.BF16
    assert tensors["blk.0.ffn_norm.weight"].tensor_type == gguf.GGMLQuantizationType.F32
    m = load_source(model_path("llama_halves.ss")).model_class().init(seed=1)
    want_q = permute_qk(m.wq[0].detach(), 4).to(torch.bfloat16).float().numpy()
    want_k = permute_qk(m.wk[0].detach(), 2).to(torch.bfloat16).float().numpy()
    np.testing.assert_array_equal(_array(q), want_q)
    np.testing.assert_array_equal(_array(tensors["blk.0.attn_k.weight"]), want_k)
    np.testing.assert_array_equal(_array(tensors["blk.0.attn_v.weight"]),
                                  m.wv[0].detach().to(torch.bfloat16).float().numpy())


def test_gpt2_file_ties_the_output_layer_and_sizes_the_context_by_its_table(tmp_path):
    out = tmp_path / "g.gguf"
    assert export_gguf(model_path("examples/gpt2.ss"), str(out), dtype="float16") == "gpt2"
    keys, tensors = _read(out)
    assert keys["general.architecture"] == "gpt2"
    assert keys["gpt2.context_length"] == 128
    assert keys["gpt2.attention.layer_norm_epsilon"] == pytest.approx(1e-5)
    assert "output.weight" not in tensors
    assert tensors["blk.0.attn_qkv.weight"].tensor_type == gguf.GGMLQuantizationType.F16
    assert tensors["blk.0.attn_qkv.bias"].tensor_type == gguf.GGMLQuantizationType.F32
    assert [int(x) for x in tensors["position_embd.weight"].shape] == [64, 128]
    out2 = tmp_path / "g2.gguf"
    export_gguf(model_path("examples/gpt2.ss"), str(out2), max_len=40)
    keys, tensors = _read(out2)
    assert keys["gpt2.context_length"] == 40
    assert [int(x) for x in tensors["position_embd.weight"].shape] == [64, 40]
    with pytest.raises(CommandError, match="at most the 128 rows of its position table"):
        export_gguf(model_path("examples/gpt2.ss"), str(tmp_path / "g3.gguf"), max_len=129)
    assert not (tmp_path / "g3.gguf").exists()


def test_weights_come_from_a_checkpoint(tmp_path):
    cls = load_source(model_path("llama_halves.ss")).model_class()
    m = cls.init(seed=7)
    shapescript.save(str(tmp_path / "ckpt.safetensors"), m)
    out = tmp_path / "w.gguf"
    export_gguf(model_path("llama_halves.ss"), str(out), weights=str(tmp_path / "ckpt.safetensors"))
    _, tensors = _read(out)
    np.testing.assert_array_equal(_array(tensors["token_embd.weight"]), m.embed.detach().numpy())
    with pytest.raises(CommandError, match="no such file"):
        export_gguf(model_path("llama_halves.ss"), str(out), weights=str(tmp_path / "nope"))
    (tmp_path / "bad.safetensors").write_bytes(b"not a checkpoint")
    with pytest.raises(CommandError, match="bad.safetensors"):
        export_gguf(model_path("llama_halves.ss"), str(out),
                    weights=str(tmp_path / "bad.safetensors"))


def test_placeholder_vocabulary_names_each_token(tmp_path):
    out = tmp_path / "p.gguf"
    export_gguf(model_path("llama_halves.ss"), str(out))
    r = gguf.GGUFReader(str(out))
    tokens = r.fields["tokenizer.ggml.tokens"].contents()
    assert tokens[:3] == ["<|0|>", "<|1|>", "<|2|>"] and len(tokens) == 64
    assert r.fields["tokenizer.ggml.token_type"].contents()[:2] == [
        int(gguf.TokenType.USER_DEFINED)] * 2
    assert r.fields["tokenizer.ggml.merges"].contents() == ["< |"]


@pytest.mark.parametrize("name", ["gpt2_exact_gelu.ss", "llama_layernorm.ss"])
def test_a_refused_model_leaves_no_file_and_keeps_an_old_one(tmp_path, name):
    out = tmp_path / "m.gguf"
    with pytest.raises(ValueError, match="can't be written as a GGUF file"):
        export_gguf(model_path(name), str(out))
    assert os.listdir(tmp_path) == []
    out.write_bytes(b"old")
    with pytest.raises(ValueError):
        export_gguf(model_path(name), str(out))
    assert out.read_bytes() == b"old" and os.listdir(tmp_path) == ["m.gguf"]


def test_a_failed_write_leaves_no_file(tmp_path, monkeypatch):
    def half_written(tmp, *args, **kwargs):
        with open(tmp, "wb") as f:
            f.write(b"GGUF partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("shapescript_gguf.api.write_gguf", half_written)
    with pytest.raises(OSError, match="No space left"):
        export_gguf(model_path("llama_halves.ss"), str(tmp_path / "m.gguf"))
    assert os.listdir(tmp_path) == []


def test_bad_options_are_command_errors(tmp_path):
    path = model_path("llama_halves.ss")
    out = str(tmp_path / "m.gguf")
    with pytest.raises(CommandError, match="dtype must be float32, bfloat16 or float16"):
        export_gguf(path, out, dtype="int8")
    with pytest.raises(CommandError, match="arch must be one of qwen2, phi3, llama, .*, gpt2, not 'mamba'"):
        export_gguf(path, out, arch="mamba")
    with pytest.raises(CommandError, match="not a folder"):
        export_gguf(path, out, tokenizer=str(tmp_path / "none"))
    (tmp_path / "tok").mkdir()
    with pytest.raises(CommandError, match="can't read tokenizer.json"):
        export_gguf(path, out, tokenizer=str(tmp_path / "tok"))
    (tmp_path / "tok" / "tokenizer.json").write_text('{"model": {"type": "Unigram"}}')
    with pytest.raises(CommandError, match="a 'Unigram' tokenizer"):
        export_gguf(path, out, tokenizer=str(tmp_path / "tok"))
    with pytest.raises(CommandError, match="`decode` is not a function of it"):
        export_gguf(path, out, fn="decode")
    assert os.listdir(tmp_path) == ["tok"]


def test_the_target_runs_the_export(tmp_path, capsys):
    out = tmp_path / "m.gguf"
    code = TARGET.run(model_path("llama_halves.ss"), None, {"gguf": str(out), "seed": 0,
                                                             "dtype": "float32"})
    assert code == 0 and out.exists()
    got = capsys.readouterr()
    assert got.out == "" and re.fullmatch(rf"wrote {re.escape(str(out))} \(\S+ [kMG]?B, llama\) "
                                          r"in \S+ s\n", got.err), got.err
    assert TARGET.api is export_gguf
    assert {o.name for o in TARGET.options()} == {"gguf", "arch", "weights", "seed", "dtype",
                                                  "tokenizer", "max_len", "allow_nonfinite"}


@pytest.mark.parametrize("name,first", [
    ("gpt2_exact_gelu.ss", "  gpt2: {path}:36: the model computes GELU exactly (with erf)"),
    ("llama_layernorm.ss", "  llama: a different norm: the model normalizes with layer_norm"),
    ("llama_layernorm.ss", "  gpt2: a different number of tensors"),
])
def test_the_target_refuses_with_exit_1_and_reasons(tmp_path, capsys, name, first):
    out = tmp_path / "m.gguf"
    code = TARGET.run(model_path(name), None, {"gguf": str(out)})
    err = capsys.readouterr().err
    assert code == 1
    lines = err.splitlines()
    assert lines[0] == (f"error: {model_path(name)} can't be written as a GGUF file: no "
                        "architecture llama.cpp runs computes what it computes")
    first = first.format(path=model_path(name))
    assert any(line.startswith(first) for line in lines[1:]), err
    assert "Traceback" not in err
    assert not out.exists()


def test_the_target_reports_command_errors_with_exit_2(tmp_path, capsys):
    code = TARGET.run(model_path("llama_halves.ss"), "decode", {"gguf": str(tmp_path / "m")})
    assert code == 2
    assert capsys.readouterr().err.startswith("error: ")
    code = TARGET.run(str(tmp_path / "missing.ss"), None, {"gguf": str(tmp_path / "m")})
    assert code == 2
    assert "missing.ss" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []


def test_the_target_reports_program_errors_with_exit_1(tmp_path, capsys):
    (tmp_path / "bad.ss").write_text("fn forward(x: [n]) -> [n] = y\n")
    code = TARGET.run(str(tmp_path / "bad.ss"), None, {"gguf": str(tmp_path / "m.gguf")})
    err = capsys.readouterr().err
    assert code == 1 and "error[E0201]" in err and "Traceback" not in err
    assert not (tmp_path / "m.gguf").exists()


def test_the_plugins_are_found_through_their_entry_points():
    from shapescript import plugins

    target = plugins.load_entry_point(plugins.EXPORT_TARGETS, "gguf")
    profile = plugins.load_entry_point(plugins.CHECK_PROFILES, "gguf")
    assert isinstance(target, plugins.ExportTarget) and target.flag == "--gguf"
    assert isinstance(profile, plugins.CheckProfile) and profile.extra == "gguf"
    assert shapescript.export_gguf is export_gguf


def test_the_check_profile_reports_the_serving_rules_as_errors(tmp_path):
    from shapescript import api
    from shapescript_gguf.target import PROFILE

    assert PROFILE.diagnostics(api.check_file(model_path("examples/llama.ss")), None) == []
    src = model_source("llama_halves.ss").replace(
        "|> linear(m.output)", "|> linear(m.output) |> softmax(over=V)").replace(
        "-> [b n V] Logit over V:", "-> [b n V]:")
    (tmp_path / "m.ss").write_text(src)
    diags = PROFILE.diagnostics(api.check_file(str(tmp_path / "m.ss")), "forward")
    assert [(d.code, d.severity) for d in diags] == [("E3302", "error")]


def test_loading_the_plugins_imports_neither_torch_nor_gguf():
    import subprocess
    import sys

    code = ("import sys; from shapescript_gguf.target import TARGET, PROFILE; "
            "TARGET.options(); import shapescript_gguf; "
            "print(sorted(m for m in ('torch', 'gguf', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_an_internal_error_is_one_diagnostic_with_exit_3(tmp_path, capsys, monkeypatch):
    def bug(*args, **kwargs):
        raise KeyError("slot")

    monkeypatch.setattr("shapescript_gguf.api.search", bug)
    code = TARGET.run(model_path("llama_halves.ss"), None, {"gguf": str(tmp_path / "m.gguf")})
    err = capsys.readouterr().err
    assert code == 3
    assert err.startswith("error[E0000]: internal error") and "Traceback" not in err
    assert os.listdir(tmp_path) == []


def test_the_target_reports_the_serving_rules_as_errors(tmp_path, capsys):
    src = model_source("llama_halves.ss").replace(
        "|> linear(m.output)", "|> linear(m.output) |> softmax(over=V)").replace(
        "-> [b n V] Logit over V:", "-> [b n V]:")
    (tmp_path / "m.ss").write_text(src)
    code = TARGET.run(str(tmp_path / "m.ss"), None, {"gguf": str(tmp_path / "m.gguf")})
    assert code == 1
    assert capsys.readouterr().err.startswith("error[E3302]: ")
    assert not (tmp_path / "m.gguf").exists()


def test_the_target_with_arch_tries_that_one_only(tmp_path, capsys):
    code = TARGET.run(model_path("llama_halves.ss"), None,
                      {"gguf": str(tmp_path / "m.gguf"), "arch": "gpt2"})
    assert code == 1
    assert capsys.readouterr().err.splitlines()[1:] == [
        ("  gpt2: a different norm: the model normalizes with rms_norm, where llama.cpp's "
         "gpt2 uses layer_norm")]


def test_the_output_must_be_a_new_file_in_a_folder_that_exists(tmp_path):
    src = tmp_path / "m.ss"
    src.write_text(model_source("llama_halves.ss"))
    with pytest.raises(CommandError, match="is the source file"):
        export_gguf(str(src), str(src))
    assert src.read_text() == model_source("llama_halves.ss")
    with pytest.raises(CommandError, match="no such folder"):
        export_gguf(str(src), str(tmp_path / "none" / "m.gguf"))
    with pytest.raises(CommandError, match="is a folder"):
        export_gguf(str(src), str(tmp_path))
    assert os.listdir(tmp_path) == ["m.ss"]


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_nonfinite_weight_is_refused_by_name_unless_allowed(tmp_path, capsys, value):
    cls = load_source(model_path("llama_halves.ss")).model_class()
    m = cls.init(seed=7)
    with torch.no_grad():
        m.embed[3, 1] = value
    shapescript.save(str(tmp_path / "ckpt.safetensors"), m)
    out = tmp_path / "m.gguf"
    options = {"gguf": str(out), "weights": str(tmp_path / "ckpt.safetensors")}
    assert TARGET.run(model_path("llama_halves.ss"), None, dict(options)) == 2
    err = capsys.readouterr().err
    kind = "NaN" if value != value else "infinite"
    assert err.startswith("error: --weights ") and f"weight `embed` has 1 {kind} value" in err
    assert "--allow-nonfinite" in err and not out.exists()
    assert TARGET.run(model_path("llama_halves.ss"), None,
                      {**options, "allow_nonfinite": True}) == 0
    assert out.exists()


def test_a_weight_that_overflows_in_the_dtype_is_refused(tmp_path):
    cls = load_source(model_path("llama_halves.ss")).model_class()
    m = cls.init(seed=7)
    with torch.no_grad():
        m.embed[0, 0] = 1e6  # finite in f32, infinite in f16
    shapescript.save(str(tmp_path / "ckpt.safetensors"), m)
    with pytest.raises(CommandError, match="`embed` has 1 infinite value once cast to float16"):
        export_gguf(model_path("llama_halves.ss"), str(tmp_path / "m.gguf"), dtype="float16",
                    weights=str(tmp_path / "ckpt.safetensors"))
    assert not (tmp_path / "m.gguf").exists()


def _array_field(path, key: str) -> list:
    f = gguf.GGUFReader(str(path)).fields[key]
    return [f.parts[i].tolist()[0] for i in f.data]


def test_gemma2_file_names_its_windowed_layers_and_turns_soft_capping_off(tmp_path):
    out = tmp_path / "g.gguf"
    assert export_gguf(model_path("examples/architectures/gemma2.ss"), str(out)) == "gemma2"
    keys, tensors = _read(out)
    assert keys["gemma2.attention.sliding_window"] == 6
    assert _array_field(out, "gemma2.attention.sliding_window_pattern") == [True, False]
    assert keys["gemma2.rope.freq_base_swa"] == 10000.0
    # llama.cpp's gemma2 always soft-caps: so far out that it changes nothing
    assert keys["gemma2.attn_logit_softcapping"] == 1e8
    assert keys["gemma2.final_logit_softcapping"] == 1e8
    assert "blk.1.post_attention_norm.weight" in tensors
    assert "blk.1.post_ffw_norm.weight" in tensors and "output.weight" not in tensors


def test_gemma3_file_holds_the_windowed_layers_own_rotary_base(tmp_path):
    out = tmp_path / "g.gguf"
    assert export_gguf(model_path("examples/architectures/gemma3.ss"), str(out)) == "gemma3"
    keys, _ = _read(out)
    assert keys["gemma3.rope.freq_base"] == 1000000.0
    assert keys["gemma3.rope.freq_base_swa"] == 10000.0
    assert "gemma3.final_logit_softcapping" not in keys


def test_a_context_past_the_window_llama_cpp_would_ignore_is_refused(tmp_path):
    name = model_path("examples/architectures/mistral.ss")
    out = tmp_path / "m.gguf"
    with pytest.raises(CommandError, match=r"--max-len 32: llama.cpp's llama runs no sliding "
                                           r"window, so the file is exact only within the "
                                           r"model's window of 24 positions: at most 24"):
        export_gguf(name, str(out), max_len=32)
    assert not out.exists()
    export_gguf(name, str(out), max_len=16)
    keys, tensors = _read(out)
    assert keys["llama.context_length"] == 16


def test_split_and_fused_tensors_hold_the_fields_rows(tmp_path):
    out = tmp_path / "s.gguf"
    export_gguf(model_path("llama_gate_up.ss"), str(out), seed=2)
    _, tensors = _read(out)
    m = load_source(model_path("llama_gate_up.ss")).model_class().init(seed=2)
    gate, up = m.w_gate_up[1].detach().chunk(2)
    np.testing.assert_array_equal(_array(tensors["blk.1.ffn_gate.weight"]), gate.numpy())
    np.testing.assert_array_equal(_array(tensors["blk.1.ffn_up.weight"]), up.numpy())
    out = tmp_path / "f.gguf"
    export_gguf(model_path("gpt2_separate.ss"), str(out), seed=2)
    _, tensors = _read(out)
    m = load_source(model_path("gpt2_separate.ss")).model_class().init(seed=2)
    want = torch.cat((m.bq[0], m.bk[0], m.bv[0])).detach().numpy()
    np.testing.assert_array_equal(_array(tensors["blk.0.attn_qkv.bias"]), want)
    assert "blk.0.attn_q.weight" not in tensors
