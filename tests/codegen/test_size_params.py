"""Size parameters: `fn window(n: Size, w: Size) -> [n n] Mask` takes sizes, each naming a
generic of its own signature; callable from ShapeScript with a size (a dim, a generic, a
literal, arithmetic on those) and from Python with an int, and kept symbolic by export."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from shapescript.compiler import check_source  # noqa: E402

WINDOW = """
dim D = 8
dim W = 3

fn window(n: Size, w: Size) -> [n n] Mask = causal[n n](window=w)

fn attend(x: [b n D]) -> [b n D]:
    s = x @ rearrange(x, b m d -> b d m)
    mask: [n m] Mask = window(n, W)
    return softmax(where(mask, s, -1e9), over=m) @ x

fn fixed() -> [D D] Mask = window(D, 2)
fn shorter(x: [n D]) -> [n - 1 n - 1] Mask = window(n - 1, 2)
fn counted(x: [n D], k: int) -> [n n] Mask = window(n, k)
fn pad(n: Size, x: [n D]) -> [n + 1 D] = concat((x, zeros[1 D]), over=n)
"""


def codes(src: str) -> list[str]:
    return [d.code for d in check_source(src, "t.ss")]


def test_a_size_parameter_binds_the_generic_of_its_name():
    assert codes(WINDOW) == []


def test_the_result_takes_the_callers_sizes_and_labels():
    bad = WINDOW + "fn wrong(x: [n D]) -> [n n + 1] Mask = window(n, 2)\n"
    (d,) = check_source(bad, "t.ss")
    assert d.code == "E0401" and "n + 1" in d.message


def test_a_size_argument_must_be_a_whole_number():
    (d,) = check_source(WINDOW + "fn f() -> [D D] Mask = window(D, 2.5)\n", "t.ss")
    assert d.code == "E0410" and "whole number" in d.message
    (d,) = check_source(WINDOW + "fn f(x: [n D]) -> [n D] = pad(-1, x)\n", "t.ss")
    assert d.code == "E0406"


def test_a_size_parameter_and_a_tensor_axis_of_one_generic_agree_when_checked():
    (d,) = check_source(WINDOW + "fn f(x: [m D]) -> [m + 1 D] = pad(4, x)\n", "t.ss")
    assert d.code == "E0401"


def test_size_in_brackets_is_still_for_extern_fn_only():
    (d,) = check_source("dim K = 3\nfn f(x: [n], k: Size[K]) -> [n] = x\n", "t.ss")
    assert d.code == "E0504" and "`n: Size`" in (d.help or "")


def test_ss_and_python_calls_agree_with_torch(ss):
    m = ss(WINDOW)
    want = torch.ones(5, 5, dtype=torch.bool).tril().triu(-2)
    assert torch.equal(m.window(5, 3), want)
    assert torch.equal(m.fixed(), torch.ones(8, 8, dtype=torch.bool).tril().triu(-1))
    assert torch.equal(m.shorter(torch.zeros(5, 8)), torch.ones(4, 4, dtype=torch.bool).tril().triu(-1))
    assert torch.equal(m.counted(torch.zeros(4, 8), 1), torch.eye(4, dtype=torch.bool))
    x = torch.randn(2, 6, 8, generator=torch.Generator().manual_seed(0))
    s = x @ x.transpose(1, 2)
    mask = torch.ones(6, 6, dtype=torch.bool).tril().triu(-2)
    want = torch.softmax(torch.where(mask, s, -1e9), dim=-1) @ x
    torch.testing.assert_close(m.attend(x), want)
    assert m.pad(3, torch.ones(3, 8)).shape == (4, 8)


def test_python_sizes_are_checked_against_the_tensors(ss):
    m = ss(WINDOW)
    from shapescript import ShapeError

    with pytest.raises(ShapeError, match="n is 4 in n but 3 in x"):
        m.pad(4, torch.ones(3, 8))
    with pytest.raises(ShapeError, match="a size ≥ 0"):
        m.window(-1, 2)
    with pytest.raises(TypeError):
        m.window(2.0, 2)


def test_a_size_from_an_input_stays_dynamic_in_export(tmp_path):
    import shapescript

    src = tmp_path / "w.ss"
    src.write_text(WINDOW.replace("fn attend", "export fn attend"), encoding="utf-8")
    ep = shapescript.export(str(src), "attend", str(tmp_path / "attend.pt2"))
    program = torch.export.load(str(tmp_path / "attend.pt2")).module()
    n = [str(s) for s in next(x for x in ep.graph.nodes if x.op == "placeholder").meta["val"].shape][1]
    assert not n.isdigit()
    m = __import__("types").ModuleType("w")
    from shapescript.compiler import compile_file

    exec(compile(compile_file(str(src)).python, str(src), "exec"), m.__dict__)
    for length in (1, 4, 9):
        x = torch.randn(2, length, 8, generator=torch.Generator().manual_seed(length))
        torch.testing.assert_close(program(x), m.attend(x))
