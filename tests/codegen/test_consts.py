"""Named constants (`const eps = 1e-6`): host values in calls, `extern fn` defaults and
expressions; module attributes from Python; imported by other `.ss` files; never sizes."""

from __future__ import annotations

import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

from shapescript.compiler import check_source  # noqa: E402

LAYERS = """
## The norm's epsilon.
const eps = 1e-6
const base = 10000.0
dim D = 8
const half = D / 2
const quarter = D // 4
const approximate = "tanh"
const gelu_on = true
const neg = -2 ** 3

extern fn norm_with(x: [...] Float, over: Axis[n], weight: [n] Float = none, eps: float = eps) -> [...] Float = "shapescript.rt.rms_norm"

fn norm(x: [b D]) -> [b D] = rms_norm(x, over=D, eps=eps)
fn default_norm(x: [b D]) -> [b D] = norm_with(x, over=D)
fn freqs() -> [D] = 1.0 / base ** ((arange[D] to f32) / half)
fn act(x: [b D]) -> [b D]:
    if gelu_on:
        return gelu(x, approximate=approximate) * quarter
    return x
fn shift(x: [b D], by: float = eps) -> [b D] = x + by + neg
"""

USER = """
import layers
from layers import eps as layer_eps, D

const twice = layers.eps * 2 + layer_eps

extern fn norm_layers(x: [...] Float, over: Axis[n], weight: [n] Float = none, eps: float = layers.eps) -> [...] Float = "shapescript.rt.rms_norm"

fn norm(x: [b D]) -> [b D] = rms_norm(x, over=D, eps=layers.eps) + norm_layers(x, over=D)
fn scale(x: [b D]) -> [b D] = x * twice
"""


def test_consts_are_python_attributes_of_their_types(ss):
    m = ss(LAYERS, name="layers")
    assert (m.eps, m.base, m.half, m.quarter, m.approximate, m.gelu_on, m.neg) == (
        1e-6, 10000.0, 4.0, 2, "tanh", True, -8)
    assert [type(v) for v in (m.eps, m.half, m.quarter, m.gelu_on)] == [float, float, int, bool]


def test_consts_in_calls_defaults_and_expressions_agree_with_torch(ss):
    m = ss(LAYERS, name="layers")
    x = torch.randn(3, 8, generator=torch.Generator().manual_seed(0)) * 1e-3
    want = torch.nn.functional.rms_norm(x, (8,), eps=1e-6)
    assert torch.allclose(m.norm(x), want, atol=1e-6)
    assert torch.allclose(m.default_norm(x), want, atol=1e-6)
    assert torch.allclose(m.freqs(), 1.0 / 10000.0 ** (torch.arange(8.0) / 4.0))
    assert torch.allclose(m.act(x), torch.nn.functional.gelu(x, approximate="tanh") * 2)
    assert torch.allclose(m.shift(x), x + 1e-6 - 8)
    import inspect

    assert inspect.signature(m.norm_with).parameters["eps"].default == 1e-6
    assert inspect.signature(m.shift).parameters["by"].default == 1e-6


def test_consts_are_imported_qualified_and_by_name(tmp_path, monkeypatch):
    from shapescript import importer

    (tmp_path / "layers.ss").write_text(LAYERS, encoding="utf-8")
    (tmp_path / "user.ss").write_text(USER, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("SHAPESCRIPT_CACHE_DIR", "")
    saved = dict(sys.modules)
    importer.install()
    try:
        u = importer.import_file(str(tmp_path / "user.ss"))
        x = torch.randn(3, 8, generator=torch.Generator().manual_seed(1))
        want = torch.nn.functional.rms_norm(x, (8,), eps=1e-6)
        assert torch.allclose(u.norm(x), 2 * want, atol=1e-6)
        assert u.twice == 3e-6
        assert torch.allclose(u.scale(x), x * 3e-6)
    finally:
        importer.uninstall()
        for name in set(sys.modules) - set(saved):
            del sys.modules[name]


def test_generated_code_writes_the_value(tmp_path):
    (tmp_path / "m.ss").write_text(LAYERS, encoding="utf-8")
    out = tmp_path / "m.py"
    p = subprocess.run([sys.executable, "-m", "shapescript_cli", "build", str(tmp_path / "m.ss"),
                        "-o", str(out), "--standalone"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    assert "eps = 1e-06" in text and "eps=1e-06" in text and "approximate='tanh'" in text


def test_a_const_is_not_a_size():
    src = ("const k = 4\nconst eps = 1e-6\n"
           "fn f(x: [n k]) -> [n] = x[0]\n"
           "fn g(x: [n 4]) -> [n 4] = x + zeros[n k]\n"
           "fn h(x: [n 8]) -> [n 2 4] = rearrange(x, n (a b) -> n a b, a=eps)\n"
           "dim X = k\n")
    diags = check_source(src, "t.ss")
    assert [(d.code, d.line, d.message) for d in diags] == [
        ("E0306", 3, "`k` is a const (= 4), not a size"),
        ("E0306", 4, "`k` is a const (= 4), not a size"),
        ("E0306", 5, "`eps` is a const (= 1e-06), not a size"),
        ("E0306", 6, "`k` is a const (= 4), not a size"),
    ]
    assert diags[0].help == "a size is a `dim`: declare `dim k = 4` to use it in shapes"
    assert diags[2].help.startswith("a size is a whole number")
    diags = check_source("const k = 2\nfn f(x: [n]) -> [2] = k |> map(c => x[c])\n"
                         "fn g(x: [n K]) -> ([n 2], [n 2]) = split(x, over=K, sizes=(k, 2))\ndim K = 4\n",
                         "t.ss")
    assert [(d.code, d.line) for d in diags] == [("E0306", 2), ("E0306", 3)]
    # As a host value, a const may index and slice (a slice by values has a `?` size).
    assert check_source("const k = 2\nfn f(x: [n 4]) -> [?m 4] = x[0..k]\n"
                        "fn g(x: [n 4]) -> [4] = x[k]\n", "t.ss") == []


@pytest.mark.parametrize("value, message", [
    ("sqrt(4.0)", "a const's value must be known before the program runs"),
    ("nope * 2", "unknown name `nope` in a const"),
    ("1 // 0", "division by zero in a const"),
    ("2 ** 64", "const `c` doesn't fit in 64 bits"),
    ("1e300 * 1e300", "const `c` is inf"),
    ('"a" + 1', "`+` on a string and an int in a const"),
    ("-true", "`-` can't apply to a bool"),
    ("zeros[3]", "a const's value must be known before the program runs"),
])
def test_a_const_that_is_not_constant_is_e0307(value, message):
    diags = check_source(f"const c = {value}\nfn f(x: [n]) -> [n] = x * c\n", "t.ss")
    assert [(d.code, d.message) for d in diags] == [("E0307", message)]


def test_const_names_follow_the_rules_of_names():
    diags = check_source("dim D = 2\nconst D = 1.0\nconst mean = 2.0\nconst _ss_x = 1\n", "t.ss")
    assert [d.code for d in diags] == ["E0202", "E0203", "E0203"]
    # A parameter or a local may take a const's name; inside, the name is theirs.
    assert check_source("const eps = 1e-6\nfn f(x: [n], eps: float = eps) -> [n]:\n"
                        "    y = x + eps\n    return y\n", "t.ss") == []
