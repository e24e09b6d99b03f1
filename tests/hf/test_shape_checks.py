"""The modeling file keeps the source's shape checks: the forward function's arguments
and every `as`, with the messages the source's checked functions give, and without
breaking `torch.compile(fullgraph=True, dynamic=True)`."""

from __future__ import annotations

import ast

import pytest

from hf_helpers import LLAMA

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

# Images cut into patches (a size a*n + c to solve), and an `as` on a size the data
# decides.
PATCHES = '''\
## Side of each square patch, in pixels.
dim P = 4
## Number of classes.
dim C = 3

model Patches:
    param w: [P*P*3 C] = normal(std=0.1)

## The rows of `x` that have a non-zero value.
fn nonempty_rows(x: [n d]) -> [?k d]:
    return x[reduce(abs(x), n d -> n, max) > 0.0]

## The mean class scores of the patches of the first image, every one of which must
## have ink.
fn classify(m: Patches, img: [b 3 4gh 4gw], tags: [b] Index[C]) -> [C]:
    tokens = rearrange(img, b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c), p1=P, p2=P)
    rows = nonempty_rows(tokens[0]) as [gh*gw P*P*3]
    return reduce(rows @ m.w, r c -> c, mean)
'''


def errors(call):
    """What ``call()`` raises: its class's name and its message."""
    try:
        call()
    except Exception as err:  # noqa: BLE001 - the error is what is compared
        return type(err).__name__, str(err)
    return None


@pytest.mark.slow
def test_a_wrong_shape_to_the_loaded_model_is_the_sources_shape_error(folders):
    from shapescript import api
    from transformers import AutoModelForCausalLM

    folder = folders("llama")
    model = AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True).eval()
    checked = api.import_file(LLAMA)           # the source, with its checked entries
    m = checked.Llama.init(seed=0)
    ids = torch.randint(0, 64, (2, 5))
    cases = [
        (ids, torch.arange(6).expand(2, 6)),              # n: 5 in ids, 6 in pos
        (ids, torch.arange(5).expand(3, 5)),              # b: 2 in ids, 3 in pos
        (ids[:, :, None].expand(2, 5, 3), torch.arange(5).expand(2, 5)),   # rank 3
    ]
    for x, pos in cases:
        want = errors(lambda: checked.forward(m, x, pos))
        got = errors(lambda: model(input_ids=x, position_ids=pos))
        assert want is not None and want[0] == "ShapeError"
        assert got == want
    # Its message names the axis as the source writes it.
    assert errors(lambda: model(input_ids=ids, position_ids=cases[0][1]))[1].endswith(
        ": n is 5 in ids but 6 in pos")
    with pytest.raises(ValueError):            # the folder's own ShapeError is a ValueError
        model(input_ids=ids, position_ids=cases[0][1])


@pytest.mark.slow
def test_argument_and_as_checks_of_any_model_give_the_sources_messages(tmp_path):
    from shapescript import api
    from shapescript_hf import export_hf
    from transformers import AutoModel

    path = tmp_path / "patches.ss"
    path.write_text(PATCHES)
    export_hf(str(path), str(tmp_path / "patches_hf"), fn="classify", seed=0)
    text = (tmp_path / "patches_hf" / "modeling_shapescript.py").read_text()
    model = AutoModel.from_pretrained(str(tmp_path / "patches_hf"), trust_remote_code=True)
    checked = api.import_file(str(path))
    m = checked.Patches.init(seed=0)
    tags = torch.zeros(2, dtype=torch.long)
    inked = torch.randn(2, 3, 8, 8)
    blank = torch.cat([torch.zeros(2, 3, 4, 8), torch.randn(2, 3, 4, 8)], 2)
    cases = [
        (torch.randn(2, 3, 10, 8), tags),      # 10 rows: not a multiple of 4
        (torch.randn(2, 4, 8, 8), tags),       # 4 channels, not 3
        (torch.randn(3, 8, 8), tags),          # rank 3
        (inked, torch.zeros(3, dtype=torch.long)),   # b: 2 in img, 3 in tags
        (blank, tags),                         # as [gh*gw P*P*3]: two patches have no ink
    ]
    for img, t in cases:
        want = errors(lambda: checked.classify(m, img, t))
        got = errors(lambda: model(img, t))
        assert want is not None and want[0] == "ShapeError", want
        assert got == want
    assert "10 is not a multiple of 4" in errors(lambda: model(*cases[0]))[1]
    assert "expected [gh*gw P*P*3] = (4, 48), got shape (2, 48)" in errors(lambda: model(*cases[4]))[1]
    assert torch.allclose(model(inked, tags), checked.classify(m, inked, tags), atol=1e-6)
    # Written out: one test a line, as code a reviewer reads, importing no ShapeScript.
    assert "_ss_rt.expect_rank(img, 4, lambda: 'patches.ss:" in text
    assert "_ss_g_gh = img.shape[2] // 4" in text
    imported = {(n.module if isinstance(n, ast.ImportFrom) else n.names[0].name).split(".")[0]
                for n in ast.walk(ast.parse(text)) if isinstance(n, (ast.Import, ast.ImportFrom))}
    assert imported <= {"torch", "einops", "transformers", "types"}, imported


@pytest.mark.slow
def test_the_checks_compile_into_one_graph_for_every_shape(folders):
    """vLLM compiles the model with fullgraph=True and dynamic sizes: the checks are
    torch._check there, so one graph serves every batch and length; a wrong shape still
    fails, naming the axis."""
    from torch._dynamo.utils import counters
    from transformers import AutoModel

    torch._dynamo.reset()
    counters.clear()
    model = AutoModel.from_pretrained(folders("llama"), trust_remote_code=True).eval()
    compiled = torch.compile(model, fullgraph=True, dynamic=True, backend="aot_eager")
    with torch.no_grad():
        for b, n in [(2, 5), (2, 9), (3, 7)]:
            ids = torch.randint(0, 64, (b, n))
            pos = torch.arange(n).expand(b, n)
            got = compiled(input_ids=ids, position_ids=pos, use_cache=False).last_hidden_state
            want = model(input_ids=ids, position_ids=pos, use_cache=False).last_hidden_state
            assert torch.allclose(got, want, atol=1e-5)
        assert counters["stats"]["unique_graphs"] == 1
        with pytest.raises(Exception, match="n is 5 in ids but 6 in pos"):
            compiled(input_ids=torch.zeros(2, 5, dtype=torch.long),
                     position_ids=torch.zeros(2, 6, dtype=torch.long), use_cache=False)
    torch._dynamo.reset()


@pytest.mark.slow
def test_vectors_an_engine_looked_up_pass_the_ids_check(folders):
    from transformers import AutoModel

    model = AutoModel.from_pretrained(folders("llama"), trust_remote_code=True).eval()
    ids = torch.randint(0, 64, (2, 5))
    with torch.no_grad():
        want = model(input_ids=ids, use_cache=False).last_hidden_state
        got = model(inputs_embeds=model.embed_tokens(ids), use_cache=False).last_hidden_state
    assert torch.equal(got, want)


# Sizes solved from `n + 1` and `2*k`, and bound by one argument for the next.
OFFSETS = '''\
dim C = 3

model Weights:
    param w: [C] = ones

## The weighted values of `y`, checked against `x` and `z`.
fn weigh(m: Weights, x: [b n+1 C], y: [b n C], z: [b 2*k]) -> [b n C]:
    return y * m.w
'''


@pytest.mark.slow
def test_sizes_solved_from_an_offset_or_a_multiple_give_the_sources_messages(tmp_path):
    from shapescript import api
    from shapescript_hf import export_hf
    from transformers import AutoModel

    path = tmp_path / "offsets.ss"
    path.write_text(OFFSETS)
    export_hf(str(path), str(tmp_path / "offsets_hf"), fn="weigh", seed=0)
    model = AutoModel.from_pretrained(str(tmp_path / "offsets_hf"), trust_remote_code=True)
    checked = api.import_file(str(path))
    m = checked.Weights.init(seed=0)
    x, y, z = torch.randn(2, 5, 3), torch.randn(2, 4, 3), torch.randn(2, 6)
    cases = [
        (x, torch.randn(2, 5, 3), z),             # n: 4 from x, 5 in y
        (x, y, torch.randn(2, 5)),                # 5 is not a multiple of 2
        (torch.randn(2, 0, 3), y, z),             # n would be -1
        (x, torch.randn(2, 4, 2), z),             # C
    ]
    for args in cases:
        want = errors(lambda: checked.weigh(m, *args))
        assert want is not None and want[0] == "ShapeError", want
        assert errors(lambda: model(*args)) == want
    assert torch.equal(model(x, y, z), checked.weigh(m, x, y, z))
