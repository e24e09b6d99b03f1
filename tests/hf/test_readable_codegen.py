"""The readable code generation of the modeling file (``generate_functions``): einops
patterns written with torch's own view operations compute what einops computes."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

VIEWS = '''\
## Patterns the readable code generation writes with torch's view operations.

fn heads(x: [b n 8]) -> [b 4 n 2] = rearrange(x, b n (h d) -> b h n d, h=4)

fn merged(x: [b h n d]) -> [b n h*d] = rearrange(x, b h n d -> b n (h d))

fn both(x: [b 6 n]) -> [b*n 2 3] = rearrange(x, b (h d) n -> (b n) h d, h=2)

fn grown(x: [b n]) -> [b n 3] = repeat(x, b n -> b n r, r=3)

fn tiled(x: [b n]) -> [b 2*n] = repeat(x, b n -> b (r n), r=2)

fn doubled(x: [b n]) -> [b n*2] = repeat(x, b n -> b (n r), r=2)

fn front(x: [b n]) -> [2 b n] = repeat(x, b n -> r b n, r=2)

fn mixed(x: [b n]) -> [n 2 b 3] = repeat(x, b n -> n r b s, r=2, s=3)

fn paired(x: [b n], y: [b n]) -> [b n 2] = rearrange(stack((x, y)), two b n -> b n two)

fn woven(x: [b n], y: [b n]) -> [b n*2] = rearrange(stack((x, y)), two b n -> b (n two))

fn across(x: [b n], y: [b n]) -> [n 2 b] = rearrange(stack((x, y)), two b n -> n two b)

fn unwoven(x: [b 2n]) -> [2 b n] = rearrange(x, b (n two) -> two b n, two=2)
'''

ARGS = {
    "heads": lambda: (torch.randn(2, 3, 8),),
    "merged": lambda: (torch.randn(2, 3, 4, 5),),
    "both": lambda: (torch.randn(2, 6, 5),),
    "grown": lambda: (torch.randn(2, 5),),
    "tiled": lambda: (torch.randn(2, 5),),
    "doubled": lambda: (torch.randn(2, 5),),
    "front": lambda: (torch.randn(2, 5),),
    "mixed": lambda: (torch.randn(2, 5),),
    "paired": lambda: (torch.randn(2, 5), torch.randn(2, 5)),
    "woven": lambda: (torch.randn(2, 5), torch.randn(2, 5)),
    "across": lambda: (torch.randn(2, 5), torch.randn(2, 5)),
    "unwoven": lambda: (torch.randn(2, 6),),
}


@pytest.fixture(scope="module")
def views(tmp_path_factory):
    from shapescript import api

    path = tmp_path_factory.mktemp("views") / "views.ss"
    path.write_text(VIEWS)
    program = api.check_file(str(path))
    assert program.ok
    return api.import_file(str(path)), program


@pytest.mark.parametrize("fn", sorted(ARGS))
def test_torch_views_compute_what_einops_computes(fn, views):
    from shapescript import api

    source, program = views
    text = api.generate_functions(program, fn).source
    assert "_ss_einops" not in text and "einops" not in text.split("\n", 1)[0]
    namespace: dict = {}
    exec(compile(text, f"<{fn}>", "exec"), namespace)
    args = ARGS[fn]()
    got = namespace[fn](*args)
    want = getattr(source, fn)(*args)           # the ordinary module: einops
    assert got.shape == want.shape and torch.equal(got, want)


def test_a_pattern_einops_keeps_is_left_to_einops(tmp_path):
    from shapescript import api

    path = tmp_path / "anon.ss"
    path.write_text("fn flat(x: [b n d]) -> [b n*d] = rearrange(x, b ... -> b (...))\n")
    program = api.check_file(str(path))
    assert program.ok, program.diagnostics
    assert "_ss_einops.rearrange(" in api.generate_functions(program, "flat").source
