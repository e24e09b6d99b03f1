"""Checked entries verify each argument once; `--checks`/`--value-checks` modes; `as`."""

import subprocess
import sys
import textwrap

import pytest
import torch

import shapescript
from shapescript import DeviceError, DomainError, ShapeError

TOKENS = """\
dim D = 4

fn f(x: [b n D], w: [D]) -> [b n D] = x * w
fn pair(x: [n 2], m: [n n] Mask) -> [n 2] = x
fn cells(x: [b 16gh]) -> [b gh 16] = rearrange(x, b (gh c) -> b gh c, c=16)
fn cast(x: [n] f16) -> [n] f16 = x
fn probs(p: [b C] Prob over C) -> [b C] = p
fn pos(x: [n] Pos) -> [n] = x
fn ids(i: [n] Index[D]) -> [n] i64 = i
fn scale(x: [n], k: int) -> [n] = x * k
fn assert_rows(x: [n D]) -> [5 D] = x as [5 D]
fn keep(x: [n D], m: [n] Mask) -> [?k D] = x[m] as [?k D]
"""


@pytest.fixture
def mod(ss):
    return ss(TOKENS, "tokens")


def test_rank(mod):
    with pytest.raises(ShapeError, match=r"^tokens.ss:3:6: x: expected \[b n D\] = \(b, n, 4\), got shape \(2, 3\)$"):
        mod.f(torch.zeros(2, 3), torch.zeros(4))


def test_static_size(mod):
    with pytest.raises(ShapeError, match=r"x: expected \[b n D\] = \(b, n, 4\), got shape \(2, 3, 5\)"):
        mod.f(torch.zeros(2, 3, 5), torch.zeros(4))


def test_generic_consistency(mod):
    with pytest.raises(ShapeError, match=r"^tokens.ss:4:19: n is 3 in x but 4 in m$"):
        mod.pair(torch.zeros(3, 2), torch.zeros(4, 4, dtype=torch.bool))
    with pytest.raises(ShapeError, match="n is 3 in x but 4 in m"):
        mod.pair(torch.zeros(3, 2), torch.zeros(3, 4, dtype=torch.bool))


def test_linear_form(mod):
    assert mod.cells(torch.zeros(2, 48)).shape == (2, 3, 16)
    with pytest.raises(ShapeError, match=r"x: expected \[b 16gh\] = \(b, 16gh\), got shape \(2, 40\): 40 is not a multiple of 16"):
        mod.cells(torch.zeros(2, 40))


def test_dtype(mod):
    with pytest.raises(ShapeError, match=r"x: expected dtype f16, got torch.float32"):
        mod.cast(torch.zeros(3))


def test_host_type(mod):
    assert mod.scale(torch.ones(2), 3).tolist() == [3.0, 3.0]
    with pytest.raises(TypeError):
        mod.scale(torch.ones(2), 1.5)


def test_not_a_tensor(mod):
    with pytest.raises(TypeError):
        mod.f([[1.0]], torch.zeros(4))


def test_domains(mod):
    ok = torch.softmax(torch.randn(4, 3), -1)
    assert mod.probs(ok) is not None
    with pytest.raises(DomainError, match="p: expected Prob over C"):
        mod.probs(ok * 0.5)
    with pytest.raises(DomainError, match="Pos"):
        mod.pos(torch.tensor([1.0, 0.0]))
    with pytest.raises(DomainError, match="Index"):
        mod.ids(torch.tensor([0, 4]))
    with pytest.raises(DomainError):
        mod.pos(torch.tensor([float("nan")]))


def test_as_with_static_rows(mod):
    assert mod.assert_rows(torch.zeros(5, 4)).shape == (5, 4)
    with pytest.raises(ShapeError, match=r"expected \[5 D\] = \(5, 4\), got shape \(6, 4\)"):
        mod.assert_rows(torch.zeros(6, 4))


def test_as_with_unknown(mod):
    x = torch.arange(12.0).reshape(3, 4)
    out = mod.keep(x, torch.tensor([True, False, True]))
    assert torch.equal(out, x[[0, 2]])


def test_never_mode_skips_checks(ss):
    m = ss(TOKENS, "tokens", checks="never", value_checks="never")
    with pytest.raises(RuntimeError):  # torch's own error, deeper down
        m.f(torch.zeros(2, 3, 5), torch.zeros(4))
    assert m.pos(torch.tensor([0.0])).tolist() == [0.0]
    assert m.assert_rows(torch.zeros(6, 4)).shape == (6, 4)


def test_always_value_checks(ss):
    m = ss(TOKENS, "tokens", checks="always", value_checks="always")
    with pytest.raises(DomainError):
        m.pos(torch.tensor([0.0]))


def test_checks_never_but_values_always(ss):
    m = ss(TOKENS, "tokens", checks="never", value_checks="always")
    with pytest.raises(DomainError):
        m.pos(torch.tensor([0.0]))


@pytest.mark.parametrize("optimize, expect", [("", "ShapeError"), ("-O", "no error")])
def test_debug_mode_under_python_O(tmp_path, optimize, expect):
    (tmp_path / "tokens.ss").write_text(TOKENS)
    script = textwrap.dedent("""
        import torch, shapescript
        shapescript.install(checks="debug", value_checks="debug")
        import tokens
        try:
            tokens.pos(torch.tensor([1.0]))
            tokens.assert_rows(torch.zeros(6, 4))
            print("no error")
        except shapescript.ShapeError:
            print("ShapeError")
    """)
    args = [sys.executable] + ([optimize] if optimize else []) + ["-c", script]
    out = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == expect, out.stderr


def test_debug_values_off_under_O_but_shapes_on(tmp_path):
    (tmp_path / "tokens.ss").write_text(TOKENS)
    script = textwrap.dedent("""
        import torch, shapescript
        shapescript.install()   # defaults: checks always, value checks debug
        import tokens
        tokens.pos(torch.tensor([0.0]))   # a domain error, but value checks are off
        try:
            tokens.f(torch.zeros(2, 3, 5), torch.zeros(4))
        except shapescript.ShapeError as e:
            print("ShapeError")
    """)
    out = subprocess.run([sys.executable, "-O", "-c", script], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.strip() == "ShapeError", out.stderr


def test_device_error_names_the_argument_before_any_cuda_call(ss):
    m = ss("devices cuda[0]\n\nfn f(x: [n], w: [n]) -> [n] = x * w\n", "gpu")
    try:
        with pytest.raises(DeviceError, match=r"^gpu.ss:3:6: x is on cpu, expected cuda:0$"):
            m.f(torch.zeros(3), torch.zeros(3))
    finally:
        from shapescript.rt.device import reset_devices
        reset_devices()


def test_without_a_device_arguments_must_share_one(ss):
    m = ss("fn f(x: [n], w: [n]) -> [n] = x * w\n", "nodev")
    meta = torch.zeros(3, device="meta")
    with pytest.raises(DeviceError, match=r"w is on meta but x is on cpu"):
        m.f(torch.zeros(3), meta)


def test_host_number_for_a_scalar_tensor_parameter(ss):
    m = ss("fn f(x: [n], s: []) -> [n] = x * s\n", "scalar")
    assert m.f(torch.ones(2), 2.0).tolist() == [2.0, 2.0]


def test_traceback_through_compiled_code_shows_ss_lines(tmp_path):
    (tmp_path / "helper.py").write_text("def boom(x):\n    raise RuntimeError('boom')\n")
    (tmp_path / "calls.ss").write_text(
        "import python helper\n\nfn f(x: [n]) -> [n]:\n    y = x + 1\n"
        "    helper.boom(y)\n    return y\n")
    script = "import shapescript, torch\nshapescript.install()\nimport calls\ncalls.f(torch.zeros(2))\n"
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120)
    assert "RuntimeError: boom" in out.stderr
    assert 'calls.ss", line 5, in _unchecked_f' in out.stderr
    assert "helper.boom(y)" in out.stderr   # the .ss source line itself


def test_compile_error_raises_shapescript_error(tmp_path, monkeypatch):
    (tmp_path / "bad.ss").write_text("fn f(x: [n]) -> [n] = x @ x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    shapescript.install()
    with pytest.raises(shapescript.ShapeScriptError, match=r"error\[E0402\]"):
        import bad  # noqa: F401


def test_as_on_a_tuple_checks_each_element(ss, tmp_path, monkeypatch):
    (tmp_path / "pairs_py.py").write_text(
        "import torch\ndef good(): return torch.zeros(3, 4), torch.zeros(3, dtype=torch.int64)\n"
        "def bad(): return torch.zeros(3, 5), torch.zeros(3, dtype=torch.int64)\n"
        "def short(): return (torch.zeros(3, 4),)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    m = ss("import python pairs_py\n\ndim D = 4\n\nfn good() -> [?n D] = (pairs_py.good() as ([?n D], [?n] i64))[0]\n"
           "fn bad() -> [?n D] = (pairs_py.bad() as ([?n D], [?n] i64))[0]\n"
           "fn short() -> [?n D] = (pairs_py.short() as ([?n D], [?n] i64))[0]\n", "pairs")
    assert m.good().shape == (3, 4)
    with pytest.raises(ShapeError, match=r"expected \[\?n D\] = \(\?n, 4\), got shape \(3, 5\)"):
        m.bad()
    with pytest.raises(TypeError, match="expected a tuple of 2"):
        m.short()
