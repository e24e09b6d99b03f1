"""``shapescript.export`` end to end (book ch. 17): export, save, ``torch.export.load``,
run, and compare with the compiled function on several sizes, size 1 among them."""

from __future__ import annotations

import pytest
import torch
from export_helpers import EXAMPLES, PROGRAMS, aten_ops, compiled, export_and_load, hops

import shapescript

D = 8


def assert_same(program, fn, *args):
    want = fn(*args)
    got = program(*args)
    torch.testing.assert_close(got, want)


def dims_of(ep, i):
    """The example shape of the program's ``i``-th input, as torch records it."""
    nodes = [n for n in ep.graph.nodes if n.op == "placeholder"]
    return [str(s) for s in nodes[i].meta["val"].shape]


# -- causal attention, the book's example ----------------------------------------------

@pytest.fixture(scope="module")
def attention(tmp_path_factory):
    folder = tmp_path_factory.mktemp("attention")
    ep, program = export_and_load(EXAMPLES / "attention.ss", "causal_attention", folder)
    return ep, program, compiled(EXAMPLES / "attention.ss")


def test_attention_inputs_are_the_tensor_parameters_in_order(attention):
    ep, _, _ = attention
    assert [s.arg.name for s in ep.graph_signature.input_specs] == ["x", "w_qkv", "w_o"]
    b, n, d = dims_of(ep, 0)
    assert b != n and not b.isdigit() and not n.isdigit() and d == "64"
    assert dims_of(ep, 1) == ["64", "192"] and dims_of(ep, 2) == ["64", "64"]


@pytest.mark.parametrize("b,n", [(1, 1), (2, 5), (3, 1), (1, 9), (4, 16)])
def test_attention_runs_for_any_b_and_n(attention, b, n):
    _, program, mod = attention
    g = torch.Generator().manual_seed(b * 100 + n)
    x = torch.randn(b, n, 64, generator=g)
    w_qkv, w_o = torch.randn(64, 192, generator=g) / 8, torch.randn(64, 64, generator=g) / 8
    assert_same(program, mod.causal_attention, x, w_qkv, w_o)


def test_attention_rejects_a_wrong_static_size(attention):
    _, program, _ = attention
    with pytest.raises((AssertionError, RuntimeError)):
        program(torch.randn(2, 3, 32), torch.randn(64, 192), torch.randn(64, 64))


# -- dynamic shapes ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    return tmp_path_factory.mktemp("shapes"), compiled(PROGRAMS / "shapes.ss")


@pytest.mark.parametrize("b,gh", [(1, 1), (2, 3), (3, 1), (1, 5)])
def test_derived_dim(shapes, b, gh):
    folder, mod = shapes
    ep, program = _exported(folder, "patches")
    assert dims_of(ep, 0)[1].startswith("16*")
    assert_same(program, mod.patches, torch.randn(b, 16 * gh))


def test_derived_dim_rejects_a_size_not_a_multiple(shapes):
    folder, _ = shapes
    _, program = _exported(folder, "patches")
    with pytest.raises((AssertionError, RuntimeError)):
        program(torch.randn(2, 40))


@pytest.mark.parametrize("b,gh,n", [(1, 1, 1), (2, 3, 4), (3, 2, 1)])
def test_derived_dims_grouped_and_plus_one(shapes, b, gh, n):
    folder, mod = shapes
    ep, program = _exported(folder, "shifted")
    assert dims_of(ep, 0)[1].startswith("16*")
    assert dims_of(ep, 1)[0].endswith("+ 1")
    args = (torch.randn(b, 16 * gh), torch.randn(n + 1, D), torch.randn(n, D))
    assert_same(program, mod.shifted, *args)
    with pytest.raises((AssertionError, RuntimeError)):
        program(args[0], torch.randn(n + 2, D), args[2])


@pytest.mark.parametrize("h,w", [(2, 3), (1, 4), (5, 1)])
def test_auto_dim(shapes, h, w):
    folder, mod = shapes
    _, program = _exported(folder, "flatten")
    assert_same(program, mod.flatten, torch.randn(h, w), torch.randn(h * w))


def test_scalar_parameters_are_fixed_at_their_defaults(shapes):
    folder, mod = shapes
    ep, program = _exported(folder, "scale")
    assert [s.arg.name for s in ep.graph_signature.input_specs] == ["x"]
    for b, n in [(1, 1), (2, 3), (3, 5)]:
        assert_same(program, mod.scale, torch.randn(b, n, D))


_CACHE: dict = {}


def _exported(folder, fn, path=PROGRAMS / "shapes.ss"):
    key = (str(path), fn)
    if key not in _CACHE:
        _CACHE[key] = export_and_load(path, fn, folder)
    return _CACHE[key]


# -- control flow --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def control(tmp_path_factory):
    return tmp_path_factory.mktemp("control"), compiled(PROGRAMS / "control.ss")


def _control(control, fn):
    return _exported(control[0], fn, PROGRAMS / "control.ss")


@pytest.mark.parametrize("n", [1, 3, 7])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_if_on_a_tensor_is_a_cond(control, n, sign):
    ep, program = _control(control, "flip")
    assert "cond" in hops(ep)
    assert_same(program, control[1].flip, sign * torch.rand(n, D))


@pytest.mark.parametrize("shift", [-1.0, 0.2, 1.0])
def test_elif_and_a_value_from_before_the_if(control, shift):
    ep, program = _control(control, "grade")
    assert "cond" in hops(ep)
    for n in (1, 4):
        assert_same(program, control[1].grade, torch.rand(n, D) * 0.1 + shift)


def test_if_on_a_dynamic_size_is_a_cond_with_both_branches(control):
    ep, program = _control(control, "long_or_short")
    assert "cond" in hops(ep)
    for n in (1, 3, 5, 9):
        assert_same(program, control[1].long_or_short, torch.randn(n, D))


def test_if_known_while_tracing_is_python(control):
    ep, program = _control(control, "by_width")
    assert "cond" not in hops(ep)
    assert [s.arg.name for s in ep.graph_signature.input_specs] == ["x"]
    for n in (1, 2, 6):
        assert_same(program, control[1].by_width, torch.randn(n, D))


def test_return_inside_an_if_known_while_tracing(control):
    ep, program = _control(control, "early")
    assert "cond" not in hops(ep)
    for n in (1, 4):
        assert_same(program, control[1].early, torch.randn(n, D))


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_loop_over_a_generic_size_is_a_while_loop_with_a_counter(control, n):
    ep, program = _control(control, "running")
    assert "while_loop" in hops(ep)
    assert_same(program, control[1].running, torch.randn(n, D))


def test_loop_over_a_dim_is_unrolled(control):
    ep, program = _control(control, "layers")
    assert "while_loop" not in hops(ep)
    assert sum("matmul" in op for op in aten_ops(ep)) == 3
    w = torch.randn(3, D, D) / 3
    for n in (1, 5):
        assert_same(program, control[1].layers, torch.randn(n, D), w)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_host_value_changed_in_a_cond_is_a_0d_tensor(control, sign):
    ep, program = _control(control, "weigh")
    assert "cond" in hops(ep)
    for n in (1, 4):
        assert_same(program, control[1].weigh, sign * torch.rand(n, D))


def test_the_book_fix_for_e1706_exports(tmp_path):
    src = tmp_path / "fixed.ss"
    src.write_text("export fn f(x: [n]) -> [n]:\n    if sum(x) > 0:\n        y = x\n"
                   "    else:\n        y = -x\n    return y\n")
    ep, program = export_and_load(src, "f", tmp_path)
    assert "cond" in hops(ep)
    mod = compiled(src)
    for x in (torch.randn(1), torch.rand(4), -torch.rand(6)):
        assert_same(program, mod.f, x)


# -- assertions ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def checks(tmp_path_factory):
    return tmp_path_factory.mktemp("checks"), compiled(PROGRAMS / "checks.ss")


def _checks(fixture, fn, **options):
    if options:
        folder = fixture[0] / "_".join(f"{k}-{v}" for k, v in options.items())
        folder.mkdir(exist_ok=True)
        return export_and_load(PROGRAMS / "checks.ss", fn, folder, **options)
    return _exported(fixture[0], fn, PROGRAMS / "checks.ss")


@pytest.mark.parametrize("b", [1, 2, 4])
def test_as_on_a_data_dependent_size(checks, b):
    _, program = _checks(checks, "five")
    assert_same(program, checks[1].five, torch.rand(b, 5, 4) + 0.1)


def test_as_raises_runtime_error_on_other_sizes(checks):
    _, program = _checks(checks, "five")
    x = torch.rand(2, 5, 4) + 0.1
    x[0, 3] = 0.0
    with pytest.raises(RuntimeError):
        program(x)


def test_unknown_size_is_at_least_zero(checks):
    ep, program = _checks(checks, "some")
    assert "aten._assert_scalar.default" in aten_ops(ep)
    x = torch.rand(5, 4)
    x[1] = 0.0
    assert_same(program, checks[1].some, x)
    assert_same(program, checks[1].some, torch.zeros(3, 4))


def test_value_check_of_an_as_raises_with_its_message(checks):
    ep, program = _checks(checks, "root")
    assert "aten._assert_async.msg" in aten_ops(ep)
    for n in (1, 3):
        assert_same(program, checks[1].root, torch.rand(n, 4) + 0.1)
    with pytest.raises(RuntimeError, match=r"checks\.ss:\d+:\d+: expected \[n D\] Pos|"
                                           r"checks\.ss:\d+:\d+: expected Pos"):
        program(-torch.rand(3, 4))


def test_value_check_of_an_argument_raises_with_its_message(checks):
    _, program = _checks(checks, "double")
    p = torch.softmax(torch.randn(3, 5), -1)
    assert_same(program, checks[1].double, p)
    assert_same(program, checks[1].double, torch.ones(1, 1))
    with pytest.raises(RuntimeError, match=r"checks\.ss:\d+:\d+: p: expected Prob over C"):
        program(p * 1.5)


def test_checks_never_keeps_what_tracing_needs(checks):
    _, program = _checks(checks, "five", checks="never")
    x = torch.rand(2, 5, 4) + 0.1
    assert_same(program, checks[1].five, x)
    x[0, 0] = 0.0
    with pytest.raises(RuntimeError):
        program(x)


def test_value_checks_never_leaves_them_out(checks):
    ep, program = _checks(checks, "root", value_checks="never")
    assert "aten._assert_async.msg" not in aten_ops(ep)
    program(-torch.rand(3, 4))  # no check: sqrt gives nan


def test_nonempty_example(tmp_path):
    ep, program = export_and_load(EXAMPLES / "nonempty.ss", "first_image_tokens", tmp_path)
    mod = compiled(EXAMPLES / "nonempty.ss")
    for b, h, w in [(1, 224, 224), (2, 112, 448)]:
        assert_same(program, mod.first_image_tokens, torch.rand(b, 3, h, w) + 0.01)
    with pytest.raises(RuntimeError):      # 15 × 13 patches, not 196
        program(torch.rand(1, 3, 240, 208) + 0.01)
    img = torch.rand(2, 3, 224, 224) + 0.01
    img[0, :, 16:32, 32:48] = 0.0           # an empty patch
    with pytest.raises(RuntimeError):
        program(img)


def test_functions_of_imported_files_are_inlined(tmp_path):
    (tmp_path / "layers.ss").write_text(
        "dim D = 8\ndim K = 3\n\nfn scale(x: [n D]) -> [n D] = x * K\n\n"
        "fn twice(x: [n D]) -> [n D]:\n    y = scale(x)\n    if sum(y) > 0.0:\n"
        "        z = y + 1.0\n    else:\n        z = y - 1.0\n    return z\n")
    main = tmp_path / "main.ss"
    main.write_text("import layers\ndim K = 5\n\n"
                    "export fn f(x: [n layers.D]) -> [n layers.D]:\n"
                    "    return layers.twice(x) * K\n")
    ep, program = export_and_load(main, "f", tmp_path)
    assert "cond" in hops(ep)
    for x in (torch.rand(1, 8), -torch.rand(3, 8)):
        want = torch.where(x.sum() * 3 > 0, x * 3 + 1, x * 3 - 1) * 5
        torch.testing.assert_close(program(x), want)


# -- the Python API's errors -----------------------------------------------------------------

def test_file_with_errors_raises_shapescript_error(tmp_path):
    bad = tmp_path / "bad.ss"
    bad.write_text("export fn f(x: [n]) -> [n]:\n    return nope\n")
    with pytest.raises(shapescript.ShapeScriptError, match="E0201"):
        shapescript.export(str(bad))


def test_missing_function_raises_value_error():
    with pytest.raises(ValueError, match="`nope` is not a function"):
        shapescript.export(str(PROGRAMS / "codec.ss"), "nope")


def test_ambiguous_function_raises_value_error_naming_both():
    with pytest.raises(ValueError, match="`encode` and `decode`"):
        shapescript.export(str(PROGRAMS / "codec.ss"))


def test_unmarked_function_is_checked_as_exported(tmp_path):
    src = tmp_path / "py.ss"
    src.write_text("import python torch\n\nfn f(x: [n]) -> [n]:\n"
                   "    return (x |> torch.tanh) as [n]\n")
    with pytest.raises(shapescript.ShapeScriptError, match="E1701"):
        shapescript.export(str(src), "f")


def test_unmarked_function_exports_with_fn(tmp_path):
    src = tmp_path / "plain.ss"
    src.write_text("fn twice(x: [n]) -> [n] = x * 2.0\n")
    _, program = export_and_load(src, "twice", tmp_path)
    torch.testing.assert_close(program(torch.ones(3)), torch.full((3,), 2.0))


def test_error_from_torch_names_the_ss_location_and_writes_nothing(tmp_path):
    src = tmp_path / "pin.ss"
    src.write_text("dim D = 4\n\nexport fn pin(x: [n D]) -> [5 D]:\n    y = x * 2.0\n"
                   "    return y as [5 D]\n")
    out = tmp_path / "pin.pt2"
    with pytest.raises(Exception) as info:
        shapescript.export(str(src), output=str(out))
    assert any("pin.ss:5:" in note for note in getattr(info.value, "__notes__", []))
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["pin.ss"]


def test_aoti_needs_an_output():
    with pytest.raises(ValueError, match="output"):
        shapescript.export(str(EXAMPLES / "attention.ss"), aoti=True)


def test_unknown_size_of_a_parameter_is_dynamic(tmp_path):
    src = tmp_path / "rows.ss"
    src.write_text("dim D = 4\n\nexport fn f(x: [?k D]) -> [?k D]:\n    return x * 2.0\n")
    _, program = export_and_load(src, "f", tmp_path)
    for k in (1, 3, 6):
        torch.testing.assert_close(program(torch.ones(k, 4)), torch.full((k, 4), 2.0))


def test_the_spotter_forward_exports_with_fn(tmp_path):
    spotter = EXAMPLES / "spotter" / "spotter.ss"
    ep, program = export_and_load(spotter, "forward", tmp_path)
    mod = compiled(spotter)
    g = torch.Generator().manual_seed(0)
    w = (torch.randn(16, 32, generator=g), torch.randn(2, 16, 64, generator=g) / 4,
         torch.randn(2, 64, 16, generator=g) / 8, torch.randn(2, 32, 64, generator=g) / 4,
         torch.randn(2, 64, 32, generator=g) / 8, torch.randn(32, 4, generator=g))
    for b in (1, 3):
        img = torch.randint(0, 256, (b, 1, 16, 16), dtype=torch.uint8, generator=g)
        torch.testing.assert_close(program(img, *w), mod.forward(img, *w))


@pytest.mark.parametrize("b,n", [(1, 1), (2, 3), (3, 1)])
def test_a_program_that_would_refuse_size_1_is_traced_again(shapes, b, n):
    folder, mod = shapes
    ep, program = _exported(folder, "gram")
    assert not any("Ne(" in str(node.args[1:]) for node in ep.graph.nodes
                   if node.op == "call_function"
                   and node.target is torch.ops.aten._assert_scalar.default)
    assert_same(program, mod.gram, torch.randn(b, n, D))


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_name_bound_by_a_python_if_is_carried_by_a_later_cond(control, sign):
    ep, program = _control(control, "bound_then_changed")
    assert "cond" in hops(ep)
    for n in (1, 3):
        assert_same(program, control[1].bound_then_changed, sign * (torch.rand(n, D) + 1.0))
