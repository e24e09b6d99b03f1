"""`shapescript port` on transformers' own causal LMs at small widths: each port checks,
gives the source's logits, has no extern fn, rolls its blocks into a loop, loads its
weights by key and round-trips through `--hf` and `--gguf`."""

from __future__ import annotations

import pytest
import torch
from conftest import ARCHITECTURES

from shapescript import api

NAMES = list(ARCHITECTURES)


def _logits(model, ids, pos):
    with torch.no_grad():
        return model(input_ids=ids, position_ids=pos, use_cache=False).logits


def _inputs(vocab: int, b: int = 2, n: int = 9, seed: int = 5):
    g = torch.Generator().manual_seed(seed)
    return (torch.randint(0, vocab, (b, n), generator=g),
            torch.arange(n).expand(b, n).contiguous())


@pytest.mark.parametrize("name", NAMES)
def test_the_port_checks_matches_and_loops(ported, name):
    report, _ = ported(name)
    program = api.check_file(report.output)
    assert program.ok, program.diagnostics
    assert report.error <= 1e-5
    text = open(report.output, encoding="utf-8").read()
    assert "extern" not in text
    assert "    for l in 0..L:\n        x = block(m, x" in text
    assert f"model {ARCHITECTURES[name][2]}:" in text
    assert "fn forward(m: " in text and "ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:" in text
    # Every size is a dim named from the configuration, with its doc comment.
    assert "## Width of each token (`hidden_size`).\ndim D = 32\n" in text
    assert report.coverage.externs == ()
    assert report.coverage.fraction == 1.0
    assert report.coverage.named["linear"] >= 4 and report.coverage.named["embedding"] >= 1


@pytest.mark.parametrize("name", NAMES)
def test_the_weights_load_by_key_and_give_the_sources_logits(ported, name):
    report, source = ported(name)
    program = api.import_file(report.output, f"_port_test_{name}")
    m = api.load_checkpoint(report.weights, getattr(program, report.model))
    ids, pos = _inputs(61)
    with torch.no_grad():
        got = program.forward(m, ids, pos)
    want = _logits(source, ids, pos)
    assert (got - want).abs().max() <= 1e-5 * want.abs().max()


def test_mistrals_window_is_kept(ported):
    report, _ = ported("mistral")
    text = open(report.output, encoding="utf-8").read()
    assert "dim W = 5\n" in text and "attn_mask=causal[n n](window=W)" in text


def test_gpt2_reads_conv1d_weights_transposed_and_ties_the_output(ported):
    report, _ = ported("gpt2")
    text = open(report.output, encoding="utf-8").read()
    assert "transposed" in text and "embedding(pos, m.pos_embed)" in text
    assert "param output" not in text and ", m.embed)" in text


def test_the_coverage_report_names_what_the_graph_became(ported):
    report, _ = ported("llama")
    lines = report.summary().splitlines()
    assert lines[0].startswith(f"wrote {report.output} and {report.weights}: model Llama, "
                               "matches the source to ")
    assert lines[1].startswith("coverage: ") and "(100%) became named built-ins" in lines[1]
    assert "scaled_dot_product_attention 2" in lines[1] and "rms_norm" in lines[1]
    assert lines[2] == "  extern fallbacks: 0"
    assert lines[3].startswith("  .ss lines: ") and "modeling_llama.py" in lines[3]
    ss_lines, src_lines = report.coverage.ss_lines, report.coverage.source_lines
    assert src_lines is not None and ss_lines < src_lines


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_the_port_round_trips_through_hf(ported, name, tmp_path):
    from transformers import AutoModelForCausalLM

    report, source = ported(name)
    out = tmp_path / "hf"
    api_fn = __import__("shapescript").export_hf
    api_fn(report.output, str(out), weights=report.weights)
    folder = AutoModelForCausalLM.from_pretrained(str(out), trust_remote_code=True).eval()
    ids, pos = _inputs(61, seed=9)
    got, want = _logits(folder, ids, pos), _logits(source, ids, pos)
    assert (got - want).abs().max() <= 1e-5 * want.abs().max()


@pytest.mark.parametrize("name", [n for n in NAMES if ARCHITECTURES[n][3]])
def test_the_port_round_trips_through_gguf(ported, name, tmp_path):
    import gguf

    report, _ = ported(name)
    out = tmp_path / "m.gguf"
    __import__("shapescript").export_gguf(report.output, str(out), weights=report.weights)
    reader = gguf.GGUFReader(str(out))
    field = reader.fields["general.architecture"]
    assert bytes(field.parts[field.data[0]]).decode() == ARCHITECTURES[name][3]


def test_mistral_with_a_short_window_is_no_gguf_target(ported, tmp_path):
    # A window of 5 positions: too short for a file capped at the window to be of use,
    # and no architecture llama.cpp runs has Mistral's window otherwise.
    report, _ = ported("mistral")
    with pytest.raises(ValueError) as err:
        __import__("shapescript").export_gguf(report.output, str(tmp_path / "m.gguf"),
                                              weights=report.weights)
    assert "window" in str(err.value)
    assert not (tmp_path / "m.gguf").exists()
