"""The serving rules E3301–E3308, each broken by a variant of examples/llama.ss: reported
as `shapescript check --vllm` reports them, errors with --vllm (nothing written), a note
and a transformers-only folder with --hf alone."""

from __future__ import annotations

import json
import os

import pytest

from hf_helpers import LLAMA

ATTENTION = "    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])\n"
LOSS = "cross_entropy(forward(m, ids, pos), next, over=V)"
VARIANTS = {
    "E3301": [("fn forward(m: Llama, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:",
               "fn forward(m: Llama, ids: [b n] Index[V], pos: [b n] Index[P], keep: [b n] Mask) -> [b n V] Logit over V:"),
              (LOSS, LOSS.replace("pos)", "pos, ids > 0)"))],
    "E3302": ("|> linear(m.output)\n", "|> linear(m.output) |> log_softmax(over=V)\n"),
    "E3303": ("    x = embedding(ids, m.embed)\n",
              "    x = embedding(ids, m.embed) + embedding(ids, m.embed)\n"),
    # a mean over positions, in a function the forward function passes n to
    "E3304": ("    return x + feed_forward(m, x, l)\n",
              "    return x + feed_forward(m, x, l) - mean(x, over=n)\n"),
    "E3305": ("    x = x + attention(m, x, c, s, l)\n", "    x = x + x\n"),
    "E3306": [("fn forward(m: Llama, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:",
               "fn forward(ids: [b n] Index[V], m: Llama, pos: [b n] Index[P]) -> [b n V] Logit over V:"),
              (LOSS, LOSS.replace("m, ids", "ids, m"))],
}
MORE_E3304 = {
    "another mask": (ATTENTION, "    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n] and causal[n n])\n"),
    "positions from n": ("    c, s = rotation(pos)\n",
                         "    c, s = rotation(arange[n] + 0 * pos as [b n] Index[P])\n"),
    # (no attention is left for the engine either: E3305 too)
    "attention by hand": (ATTENTION, "    y = einsum(sigmoid(q @ rearrange(k, b H n Dh -> b H Dh n)), v: b H n m, b H m Dh -> b H n Dh)\n"),
}


def variant(tmp_path, change):
    text = open(LLAMA, encoding="utf-8").read()
    for old, new in change if isinstance(change, list) else [change]:
        assert old in text
        text = text.replace(old, new, 1)
    path = tmp_path / "llama.ss"
    path.write_text(text, encoding="utf-8")
    return str(path)


def serving(path):
    from shapescript import api

    program = api.check_file(path)
    assert program.ok, api.render_diagnostics(program.diagnostics, program.sources)
    diags = api.serving_diagnostics(program, "forward", as_errors=True)
    return diags, api.render_diagnostics(diags, program.sources)


def run_target(path, out, capsys, **options):
    from shapescript_hf.target import target

    code = target.run(path, "forward", {"hf": str(out), **options})
    return code, capsys.readouterr()


def test_the_examples_keep_every_rule():
    for path in (LLAMA, LLAMA.replace("llama", "gpt2")):
        assert serving(path)[0] == []


@pytest.mark.parametrize("code", sorted(VARIANTS))
def test_each_rule_reported_as_check_reports_it(code, tmp_path):
    path = variant(tmp_path, VARIANTS[code])
    diags, text = serving(path)
    assert {d.code for d in diags} == {code}
    assert all(d.is_error for d in diags)
    assert text.startswith(f"error[{code}]: ")
    assert f" --> {path}:" in text or f"--> {path}:" in text
    assert "= help: " in text
    assert text.rstrip().endswith(f"For more information about {code}, run `shapescript explain {code}`.")


@pytest.mark.parametrize("case", sorted(MORE_E3304))
def test_more_ways_of_mixing_positions(case, tmp_path):
    path = variant(tmp_path, MORE_E3304[case])
    codes = [d.code for d in serving(path)[0]]
    assert codes.count("E3304") == 1 and set(codes) <= {"E3304", "E3305"}


@pytest.mark.slow
@pytest.mark.parametrize("code", sorted(VARIANTS))
def test_vllm_makes_each_rule_an_error_and_writes_nothing(code, tmp_path, capsys):
    path = variant(tmp_path, VARIANTS[code])
    out = tmp_path / "out_hf"
    rc, cap = run_target(path, out, capsys, vllm=True, no_verify=True)
    assert rc == 1
    assert f"error[{code}]" in cap.err and "Traceback" not in cap.err
    assert not out.exists()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".out_hf")]


@pytest.mark.slow
@pytest.mark.parametrize("code", ["E3302", "E3304"])
def test_hf_alone_exports_for_transformers_with_a_note(code, tmp_path, capsys):
    import torch
    from transformers import AutoModelForCausalLM

    path = variant(tmp_path, VARIANTS[code])
    out = tmp_path / "out_hf"
    rc, cap = run_target(path, out, capsys, seed=3)
    assert rc == 0, cap.err
    assert "note: `forward` is exported for transformers only" in cap.err and code in cap.err
    config = json.load(open(out / "config.json"))
    assert config["shapescript"]["vllm"] is False
    assert config["shapescript"]["unservable"].startswith(f"{code}: ")
    assert config["use_cache"] is False
    model = AutoModelForCausalLM.from_pretrained(str(out), trust_remote_code=True)
    prompt = torch.tensor([[1, 2, 3]])
    # No cache: each step computes from the start, so generate is still right.
    a = model.generate(prompt, max_new_tokens=4, do_sample=False)
    b = model.generate(prompt, max_new_tokens=4, do_sample=False, use_cache=False)
    assert a.tolist() == b.tolist()


@pytest.mark.slow
def test_no_model_first_is_an_error_with_hf_alone(tmp_path, capsys):
    path = variant(tmp_path, VARIANTS["E3306"])
    out = tmp_path / "out_hf"
    rc, cap = run_target(path, out, capsys)
    assert rc == 1 and "error[E3306]" in cap.err
    assert not out.exists()


FLAGGED_E3304 = {
    **MORE_E3304,
    "a causal mask in a variable": (ATTENTION, "    mask = causal[n n]\n"
                                    "    y = scaled_dot_product_attention(q, k, v, attn_mask=mask)\n"),
}


@pytest.mark.parametrize("case", sorted(FLAGGED_E3304))
def test_e3304_help_never_suggests_what_it_flagged(case, tmp_path):
    from shapescript import api

    path = variant(tmp_path, FLAGGED_E3304[case])
    program = api.check_file(path)
    text = open(path, encoding="utf-8").read()
    for d in api.serving_diagnostics(program, "forward"):
        if d.code != "E3304":
            continue
        lines = text.split("\n")
        flagged = lines[d.line - 1][d.column - 1:d.end_column - 1] if d.line == d.end_line \
            else lines[d.line - 1][d.column - 1:]
        assert flagged not in d.help, (flagged, d.help)
        # the line's own mask isn't offered as the fix
        mask = flagged.partition("attn_mask=")[2].rstrip(")")
        assert not mask or f"attn_mask={mask}" not in d.help, d.help


GROUPING = "    k = repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)\n    v = repeat(v, b Hkv n Dh -> b (Hkv R) n Dh)\n"
E3307_VARIANTS = {
    "interleaved heads": (GROUPING, GROUPING.replace("(Hkv R)", "(R Hkv)")),
    "keys repeated, values not": (GROUPING, GROUPING.split("\n")[0] + "\n"
                                  "    v = repeat(v, b Hkv n Dh -> b (R Hkv) n Dh)\n"),
    "the repeated keys read again": ("    return linear(rearrange(y, b H n Dh -> b n (H Dh)), m.wo[l])\n",
                                     "    return linear(rearrange(y, b H n Dh -> b n (H Dh)), m.wo[l]) + 0.0 * sum(k)\n"),
}


@pytest.mark.parametrize("case", sorted(E3307_VARIANTS))
def test_a_repeat_the_engine_cant_group_is_e3307(case, tmp_path):
    diags, text = serving(variant(tmp_path, E3307_VARIANTS[case]))
    codes = [d.code for d in diags]
    assert codes.count("E3307") == 1 and set(codes) <= {"E3307", "E3304"}, text
    assert set(codes) == {"E3307"} or case == "the repeated keys read again"  # sum(k): E3304
    assert "help: repeat keys and values to the query heads by" in text


def test_the_examples_group_their_keys_and_values():
    from shapescript import api

    for name, kv in (("llama", 2), ("mistral", 2), ("gpt2", 4)):
        form = api.serving_form(api.check_file(LLAMA.replace("llama", name)), "forward")
        assert form.diagnostics == [] and form.kv_heads == kv
        assert len(form.grouped) == (0 if name == "gpt2" else 1)


WINDOW = "attn_mask=window(n, W))\n"


def test_windows_the_engine_cant_know_or_hold_are_e3308(tmp_path):
    from shapescript import api

    mistral = LLAMA.replace("llama", "mistral")
    program = api.check_file(mistral)
    form = api.serving_form(program, "forward")
    assert form.diagnostics == [] and set(form.windows.values()) == {8}
    # GGUF has no window yet.
    assert [d.code for d in api.serving_diagnostics(program, "forward", windows=False)] == ["E3308"]
    text = open(mistral, encoding="utf-8").read()
    cases = {
        "from a parameter": text.replace("c: [b n Dh] f32, s: [b n Dh] f32, l: int) -> [b n D]:\n    h = rms",
                                         "c: [b n Dh] f32, s: [b n Dh] f32, l: int, w: int = 8) -> [b n D]:\n    h = rms", 1)
                                    .replace("window(n, W)", "window(n, w)", 1),
        "of different sizes": text.replace(
            "    y = scaled_dot_product_attention(q, k, v, " + WINDOW,
            "    if l == 0:\n        y = scaled_dot_product_attention(q, k, v, " + WINDOW
            + "    else:\n        y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n](window=4))\n"),
        "of no position": text.replace("window(n, W)", "window(n, 0)", 1),
    }
    for case, src in cases.items():
        assert src != text, case
        path = tmp_path / f"{case.replace(' ', '_')}.ss"
        path.write_text(src, encoding="utf-8")
        diags, rendered = serving(str(path))
        assert [d.code for d in diags] == ["E3308"], (case, rendered)


def test_causal_takes_a_window_by_name_only(tmp_path):
    from shapescript.compiler import check_source

    def codes(body):
        path = tmp_path / "c.ss"
        src = f"dim W = 3\n\nfn f(x: [n n]) -> [n n] Mask:\n    return {body}\n"
        return [(d.code, d.message) for d in check_source(src, str(path))]

    assert codes("causal[n n](window=W)") == []
    assert codes("causal[n n](window=2)") == []
    assert codes("causal[n n](4)") == [("E0501", "`causal` takes only a window, `window=W`, not a value")]
    assert codes("causal[n n](size=4)")[0][0] == "E0501"
    assert codes("causal[n n](window=1.5)")[0][0] == "E0410"
    assert codes("ones[n n](window=4) > 0.0")[0][0] == "E0501"


def test_a_window_keeps_the_last_w_positions(tmp_path):
    import torch

    from shapescript import importer

    (tmp_path / "win.ss").write_text(
        "fn f(x: [n m]) -> [n m] Mask:\n    return causal[n m](window=3)\n", encoding="utf-8")
    got = importer.import_file(str(tmp_path / "win.ss")).f(torch.zeros(5, 5))
    i = torch.arange(5)
    assert got.tolist() == ((i[None] <= i[:, None]) & (i[None] > i[:, None] - 3)).tolist()


def test_a_window_is_served_by_vllm_and_left_to_the_gguf_search():
    # The GGUF search decides about a window (a target that runs it, or a file capped at
    # it), so `check --gguf` no longer refuses one before the search.
    from shapescript import api

    gguf = pytest.importorskip("shapescript_gguf.target")
    from shapescript_hf.target import vllm_profile

    program = api.check_file(LLAMA.replace("llama", "mistral"))
    assert vllm_profile.diagnostics(program, None) == []
    assert gguf.PROFILE.diagnostics(program, None) == []
