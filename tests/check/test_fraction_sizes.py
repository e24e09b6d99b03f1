"""The fraction idiom for sizes: a quarter of a head is `dim Drot = Dh / 4`, a division the
checker evaluates. A float where a size is expected (`Dh * 0.25`: E0308) and a float const
used as a size (`rotary_pct`: E0306) say so in their help."""

from __future__ import annotations

import pytest

from shapescript.compiler import check_source


@pytest.mark.parametrize("size,idiom", [
    ("Dh * 0.25", "`Dh / 4`"),
    ("0.75 * Dh", "`Dh * 3 / 4`"),
    ("(Dh - 4) * 0.5", "`(Dh - 4) / 2`"),
    ("Dh / 0.5", "`Dh * 2`"),
])
def test_a_fraction_in_a_dim_suggests_the_division(size, idiom):
    (d,) = check_source(f"dim Dh = 16\ndim Drot = {size}\n", "t.ss")
    assert d.code == "E0308" and idiom in (d.help or "")


def test_a_fraction_in_a_type_is_e0308():
    (d,) = check_source("fn f() -> [1] = zeros[0.5]\n", "t.ss")
    assert d.code == "E0308"


def test_a_float_const_used_as_a_size_suggests_the_division():
    (d,) = check_source("const rotary_pct = 0.25\ndim Dh = 16\ndim Drot = Dh * rotary_pct\n", "t.ss")
    assert d.code == "E0306" and "`Dh / 4` for `Dh * 0.25`" in (d.help or "")
    (d,) = check_source("const eps = 1e-5\nfn f(x: [n eps]) -> [n] = sum(x, over=n)\n", "t.ss")
    assert d.code == "E0306" and "division" not in (d.help or "")


def test_the_idiom_checks_and_proves_the_rest():
    src = ("dim Dh = 16\ndim Drot = Dh / 4\n"
           "fn partial(x: [n Dh]) -> [n Dh]:\n"
           "    turned: [n Drot] = x[Dh=0..Drot]\n"
           "    return concat((turned, x[Dh=Drot..Dh]), over=Drot)\n")
    assert check_source(src, "t.ss") == []


@pytest.mark.parametrize("size", ["Dh * 1e999", "Dh / 1e999", "1e999 * Dh"])
def test_a_fraction_too_large_for_a_ratio_is_still_e0308(size):
    # Infinite or not a number: no whole-number ratio says it, so the general help.
    (d,) = check_source(f"dim Dh = 16\ndim Drot = {size}\n", "t.ss")
    assert d.code == "E0308" and "division" in (d.help or "")
