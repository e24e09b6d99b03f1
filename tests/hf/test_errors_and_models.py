"""Bad input gets a clear error and leaves no folder; a model that isn't a language
model exports for AutoModel."""

from __future__ import annotations

import json
import os

import pytest

from hf_helpers import GPT2, LLAMA

torch = pytest.importorskip("torch")

CLASSIFIER = '''\
dim D = 8
dim C = 3

## A bag-of-vectors classifier.
model Classifier:
    param w: [D C] = normal(std=0.5)
    param b: [C] = zeros

## The class scores of each set of vectors.
fn classify(m: Classifier, x: [b n D], scale: float = 2.0) -> [b C] Logit over C:
    return mean(x, over=n) @ m.w * scale + m.b
'''


def run(path, out, capsys, **options):
    from shapescript_hf.target import target

    code = target.run(path, options.pop("fn", "forward"), {"hf": str(out), **options})
    return code, capsys.readouterr()


def no_trace(out, tmp_path):
    assert not os.path.exists(out)
    parent = os.path.dirname(os.path.abspath(out))
    if os.path.isdir(parent):
        assert not [p for p in os.listdir(parent) if p.startswith("." + os.path.basename(out))]


def test_missing_weights_file(tmp_path, capsys):
    out = tmp_path / "out"
    rc, cap = run(LLAMA, out, capsys, weights=str(tmp_path / "nope.safetensors"))
    assert rc == 2
    assert cap.err.startswith("error: --weights ") and "no such file" in cap.err
    no_trace(out, tmp_path)


@pytest.mark.slow
def test_checkpoint_of_another_model(tmp_path, capsys):
    from shapescript import api

    from shapescript_export.model_export import load_model_source, make_weights

    gpt2 = load_model_source(GPT2)
    ckpt = tmp_path / "gpt2.safetensors"
    api.save_checkpoint(str(ckpt), make_weights(gpt2, seed=0))
    out = tmp_path / "out"
    rc, cap = run(LLAMA, out, capsys, weights=str(ckpt))
    assert rc == 2
    assert "holds no Llama (it holds GPT2)" in cap.err and "Traceback" not in cap.err
    no_trace(out, tmp_path)


def test_folder_that_cant_be_written(tmp_path, capsys):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    out = blocker / "out"
    rc, cap = run(LLAMA, out, capsys, no_verify=True)
    assert rc == 2 and cap.err.startswith("error: ") and "Traceback" not in cap.err
    assert not out.exists()


def test_missing_function_and_bad_options(tmp_path, capsys):
    out = tmp_path / "out"
    rc, cap = run(LLAMA, out, capsys, fn="nope")
    assert rc == 2 and "nope" in cap.err
    rc, cap = run(LLAMA, out, capsys, tokenizer=str(tmp_path))
    assert rc == 2 and "--tokenizer" in cap.err
    no_trace(out, tmp_path)


def test_a_file_with_errors_is_exit_1(tmp_path, capsys):
    bad = tmp_path / "bad.ss"
    bad.write_text("fn forward(x: [n]) -> [n] = x + y\n")
    rc, cap = run(str(bad), tmp_path / "out", capsys)
    assert rc == 1 and "error[E" in cap.err


def test_a_verification_mismatch_leaves_no_folder(tmp_path, monkeypatch):
    from shapescript_hf import api as hf_api

    # A folder whose model gives other logits than the source must not appear.
    def wrong(folder, plan, args, want, dtype):
        hf_api._compare(want + 1.0, want, dtype, "forward")

    monkeypatch.setattr(hf_api, "verify_folder", wrong)
    out = tmp_path / "out"
    with pytest.raises(hf_api.HFExportError, match="differs from `forward`"):
        hf_api.export_hf(LLAMA, str(out))
    no_trace(out, tmp_path)


@pytest.mark.slow
def test_a_classifier_exports_for_automodel(tmp_path, capsys):
    from transformers import AutoModel

    from shapescript_export.model_export import load_model_source, make_weights

    path = tmp_path / "classifier.ss"
    path.write_text(CLASSIFIER)
    out = tmp_path / "classifier_hf"
    rc, cap = run(str(path), out, capsys, fn="classify", seed=2)
    assert rc == 0, cap.err
    assert "note:" in cap.err and "E3301" in cap.err
    config = json.load(open(out / "config.json"))
    assert config["architectures"] == ["ShapeScriptModel"]
    assert "AutoModelForCausalLM" not in config["auto_map"]
    assert config["shapescript"]["vllm"] is False
    assert config["shapescript"]["unservable"].startswith("E3301: ")
    assert not (out / "generation_config.json").exists()
    model = AutoModel.from_pretrained(str(out), trust_remote_code=True)
    src = load_model_source(str(path), "classify")
    m = make_weights(src, seed=2)
    x = torch.randn(4, 5, 8)
    with torch.no_grad():
        assert torch.allclose(model(x), src.run(m, x), atol=1e-6)
        assert torch.allclose(model(x=x, scale=3.0), src.run(m, x, 3.0), atol=1e-6)


def test_max_len_beyond_the_positions_type(tmp_path, capsys):
    out = tmp_path / "out"
    rc, cap = run(LLAMA, out, capsys, max_len=1000)
    assert rc == 2
    assert cap.err == "error: --max-len 1000 is more than the 128 positions `pos: [b n] Index[128]` allows\n"
    no_trace(out, tmp_path)


def test_a_forward_an_export_cant_hold_is_e17xx(tmp_path, capsys):
    text = open(LLAMA, encoding="utf-8").read().replace(
        "    x = embedding(ids, m.embed)\n", "    x = embedding(ids, m.embed)\n    print(x)\n", 1)
    path = tmp_path / "llama.ss"
    path.write_text(text)
    out = tmp_path / "out"
    rc, cap = run(str(path), out, capsys)
    assert rc == 1 and "error[E1704]: `print` has no torch-only lowering" in cap.err
    assert "E1705" not in cap.err   # the model, taken first, is no parameter problem
    no_trace(out, tmp_path)


@pytest.mark.parametrize("value", [float("nan"), float("-inf")])
def test_a_nonfinite_weight_is_refused_by_name_unless_allowed(tmp_path, capsys, value):
    from shapescript import api

    from shapescript_export.model_export import load_model_source, make_weights

    path = tmp_path / "classifier.ss"
    path.write_text(CLASSIFIER, encoding="utf-8")
    m = make_weights(load_model_source(str(path), "classify"), seed=0)
    with torch.no_grad():
        m.b[1] = value
    ckpt = tmp_path / "c.safetensors"
    api.save_checkpoint(str(ckpt), m)
    out = tmp_path / "out"
    rc, cap = run(str(path), out, capsys, fn="classify", weights=str(ckpt))
    kind = "NaN" if value != value else "infinite"
    assert rc == 2, cap.err
    assert cap.err.startswith(f"error: --weights {ckpt}: weight `b` has 1 {kind} value (of 3)")
    assert "--allow-nonfinite" in cap.err
    no_trace(out, tmp_path)
    rc, cap = run(str(path), out, capsys, fn="classify", weights=str(ckpt),
                  allow_nonfinite=True, no_verify=True)
    assert rc == 0, cap.err
    assert (out / "model.safetensors").exists()


COLLIDING = '''\
dim nn = 4
dim C = 3

model Net:
    param config: [nn C] = normal(std=0.5)
    param device: [C] = normal(std=0.5)
    param dtype: [C] = ones
    param name_or_path: [C] = normal(std=0.5)
    param embed_tokens: [C] = ones

fn attn(x: [b nn], w: [nn C]) -> [b C] = x @ w

fn ShapeScriptCall(h: [b C], kwargs: [C]) -> [b C] = h + kwargs

fn forward(m: Net, x: [b nn], self: float = 1.5) -> [b C]:
    attn_2 = attn(x, m.config) * m.dtype
    return ShapeScriptCall(attn_2, m.device) * self + m.name_or_path * m.embed_tokens
'''


@pytest.mark.slow
def test_names_the_modeling_file_holds_itself_are_renamed(tmp_path, capsys):
    """A function `attn`, fields `config`, `device`, `dtype` (and others transformers
    and the file's classes hold), a dim `nn`, a parameter `self`: the folder loads and
    runs; such a field's attribute, and so its weight's key, gets a `_`."""
    from safetensors import safe_open
    from transformers import AutoModel

    from shapescript import api

    path = tmp_path / "colliding.ss"
    path.write_text(COLLIDING, encoding="utf-8")
    out = tmp_path / "out"
    rc, cap = run(str(path), out, capsys)
    assert rc == 0, cap.err
    with safe_open(str(out / "model.safetensors"), "pt") as f:
        keys = set(f.keys())
    fields = ("config", "device", "dtype", "name_or_path", "embed_tokens")
    assert keys == {f"model.{n}_" for n in fields}
    model = AutoModel.from_pretrained(str(out), trust_remote_code=True)
    mod = api.import_file(str(path))
    net = mod.Net(**{n: getattr(model, n + "_").detach() for n in fields})
    x = torch.randn(2, 4)
    with torch.no_grad():
        torch.testing.assert_close(model(x, self_=2.0), mod.forward(net, x, 2.0))
    assert model.config.model_type == "shapescript"
