"""shapescript_export.model_export: the pieces every model exporter shares."""

from __future__ import annotations

import pytest

from hf_helpers import GPT2, LLAMA

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def llama():
    from shapescript_export.model_export import load_model_source

    return load_model_source(LLAMA)


def test_the_model_of_the_forward_function(llama):
    assert llama.fn == "forward" and llama.model_name == "Llama"
    assert llama.fields["wq"] == ((2, 64, 64), "f32")
    assert list(llama.fields)[:2] == ["embed", "attn_norm"]      # declaration order
    assert [p.name for p in llama.params] == ["ids", "pos"]


def test_new_weights_are_those_init_makes(llama):
    from shapescript_export.model_export import make_weights

    a = make_weights(llama, seed=5)
    b = llama.model_class.init(seed=5)
    c = make_weights(llama, seed=6)
    for (name, x), (_, y), (_, z) in zip(a._ss_fields(), b._ss_fields(), c._ss_fields()):
        assert torch.equal(x, y), name
    assert not torch.equal(a.wq, c.wq)


def test_weights_from_a_checkpoint_or_a_value(llama, tmp_path):
    from shapescript import api

    from shapescript_export.model_export import ModelExportError, make_weights

    m = make_weights(llama, seed=2)
    ckpt = tmp_path / "m.safetensors"
    api.save_checkpoint(str(ckpt), m)
    assert torch.equal(make_weights(llama, weights=str(ckpt)).wo, m.wo)
    assert make_weights(llama, weights=m) is m
    with pytest.raises(ModelExportError, match="no such file"):
        make_weights(llama, weights=str(tmp_path / "missing.safetensors"))
    with pytest.raises(ModelExportError, match="must be a Llama"):
        make_weights(llama, weights=torch.zeros(3))
    with pytest.raises(ModelExportError, match="--seed"):
        make_weights(llama, seed="1")


def test_cast_fields_and_dtypes(llama):
    from shapescript_export.model_export import ModelExportError, cast_fields, make_weights

    fields = cast_fields(make_weights(llama, seed=0), "bfloat16")
    assert fields["wq"].dtype == torch.bfloat16 and fields["wq"].is_contiguous()
    with pytest.raises(ModelExportError, match="--dtype"):
        cast_fields(make_weights(llama, seed=0), "float64")


def test_examples_and_attentions(llama):
    from shapescript_export.model_export import count_attentions, example_inputs, make_weights

    ids, pos = example_inputs(llama, batch=3, length=5)
    assert ids.shape == pos.shape == (3, 5) and ids.dtype == torch.int64
    assert int(ids.max()) < 64 and pos[2].tolist() == [0, 1, 2, 3, 4]
    calls = count_attentions(llama, make_weights(llama, seed=0), [ids, pos])
    assert len(calls) == 2
    assert calls[0].query == (3, 4, 5, 16) and calls[0].effective_scale == 0.25


def test_a_function_without_a_model_first_is_e3306(tmp_path):
    from shapescript import api

    from shapescript_export.model_export import ModelExportError, load_model_source

    path = tmp_path / "f.ss"
    path.write_text("fn forward(x: [n]) -> [n] = x\n")
    with pytest.raises(api.ShapeScriptError) as err:
        load_model_source(str(path))
    assert [d.code for d in err.value.diagnostics] == ["E3306"]
    with pytest.raises(ModelExportError, match="nope"):
        load_model_source(GPT2, "nope")
