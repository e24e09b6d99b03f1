"""The run-time checks of a body, in exported programs: ``torch._check`` facts the program
keeps, and a bound on the dynamic dim where a slice of a static axis gives one."""

from __future__ import annotations

import pytest
import torch

pytest.importorskip("shapescript_export")

PROGRAM = """\
dim T = 4
dim D = 2
export fn prefix(w: [T D], x: [n D]) -> [n D] = w[0..n]
export fn halves(x: [b m]) -> [b m/2 2] = rearrange(x, b (k two) -> b k two, two=2)
"""


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    import shapescript

    folder = tmp_path_factory.mktemp("exported")
    src = folder / "checks.ss"
    src.write_text(PROGRAM, encoding="utf-8")
    out = {}
    for fn in ("prefix", "halves"):
        ep = shapescript.export(str(src), fn, str(folder / f"{fn}.pt2"))
        out[fn] = (ep, torch.export.load(str(folder / f"{fn}.pt2")).module())
    return out


def test_a_slice_bounds_the_dynamic_dim(exported):
    ep, m = exported["prefix"]
    (bound,) = ep.range_constraints.values()
    assert (bound.lower, bound.upper) == (1, 4)          # n <= T, from `w[0..n]`
    w = torch.randn(4, 2)
    assert torch.equal(m(w, torch.zeros(3, 2)), w[:3])
    with pytest.raises(Exception, match=r"<= 4"):
        m(w, torch.zeros(6, 2))


def test_a_split_of_a_generic_axis_is_a_kept_fact(exported):
    _, m = exported["halves"]
    x = torch.arange(8.0).reshape(2, 4)
    assert torch.equal(m(x), x.reshape(2, 2, 2))
    with pytest.raises(Exception, match=r"Mod\(\w+, 2\)"):
        m(torch.zeros(2, 5))
