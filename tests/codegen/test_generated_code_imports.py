"""A program that checks gives a module that imports and runs: names that Python reads
as keywords are written as it can read them, and a division by a size the checker knows
is 0 is an error (E1708) before the program runs, not a ``ZeroDivisionError`` in it."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def _codes(tmp_path, src: str) -> list[str]:
    from shapescript.compiler import check_source

    path = tmp_path / "m.ss"
    path.write_text(src, encoding="utf-8")
    return [d.code for d in check_source(src, str(path))]


def test_an_attribute_that_is_a_python_keyword_is_read_with_getattr(ss, tmp_path, monkeypatch):
    (tmp_path / "kwmod.py").write_text("globals()['lambda'] = lambda x: x * 3\n"
                                       "globals()['class'] = 2\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = ss("import python kwmod\n"
             "import python torch\n"
             "fn f(x: [n]) -> [n] = kwmod.lambda(x) as [n]\n"
             "fn g(x: [n]) -> [n] = (torch.abs(x) as [n]) * (kwmod.class as float)\n")
    x = torch.tensor([1.0, -2.0])
    torch.testing.assert_close(mod.f(x), x * 3)
    torch.testing.assert_close(mod.g(x), x.abs() * 2)


def test_fields_and_dims_named_as_python_words(ss):
    mod = ss("dim lambda = 3\n"
             "dim range = 2\n"
             "model M:\n"
             "    param class: [lambda]\n"
             "    param len: [range lambda]\n"
             "fn f(m: M, x: [range]) -> [lambda] = x @ m.len + m.class * (lambda / range)\n"
             "fn g() -> M = M(class=ones[lambda], len=zeros[range lambda])\n")
    m = mod.M.init(seed=0)
    x = torch.ones(2)
    torch.testing.assert_close(mod.f(m, x), x @ getattr(m, "len") + getattr(m, "class") * 1.5)
    assert torch.equal(getattr(mod.g(), "class"), torch.ones(3))
    assert mod.lambda_ == 3 and mod.range_ == 2


@pytest.mark.parametrize("expr", ["2.0 / (D / H)", "2.0 / D", "2 // D", "7 % (H - 4)",
                                  "1.0 / (D * H)", "2.0 / (n - n)", "3 % (n - n)"])
def test_a_division_by_a_size_known_to_be_zero_is_e1708(tmp_path, expr):
    src = f"dim D = 0\ndim H = 4\nfn f(x: [n]) -> [n] = x * ({expr})\n"
    assert _codes(tmp_path, src) == ["E1708"]


def test_whole_number_tensors_divided_by_zero_are_e1708_floats_are_not(tmp_path):
    src = "dim D = 0\nfn f(x: [n] i64) -> [n] i64 = x // D\nfn g(x: [n]) -> [n] = x / D\n"
    assert _codes(tmp_path, src) == ["E1708"]


def test_a_division_by_a_size_that_isnt_zero_runs(ss):
    mod = ss("dim D = 8\ndim H = 4\nfn f(x: [n]) -> [n] = x * (2.0 / (D / H))\n")
    torch.testing.assert_close(mod.f(torch.ones(2)), torch.ones(2))
