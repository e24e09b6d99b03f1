"""The export module's code (``shapescript.codegen.export``): dynamic shapes and example
sizes from the signature, the modes baked in, what it leaves out."""

from __future__ import annotations

import pytest
from export_helpers import EXAMPLES, PROGRAMS

from shapescript.vocab import device_name
from shapescript_export.shapes import signature_shapes
from shapescript.compiler import check_program
from shapescript_export import export_module


def sig_shapes(src: str, fn: str = "f"):
    p = check_program(src, "t.ss")
    assert p.ok, p.diagnostics
    return signature_shapes(p.main.env.fns[fn], "t.ss")


def test_one_dim_per_generic_axis_shared_across_parameters():
    s = sig_shapes("dim D = 64\nfn f(x: [b n D], m: [n n] Mask, w: [D 3*D]) -> [b n D] = x\n")
    x, m, w = s.params
    assert x.axes == [("dim", "b"), ("dim", "n"), ("static", 64)]
    assert m.axes == [("dim", "n"), ("dim", "n")]
    assert w.axes == [("static", 64), ("static", 192)]
    assert m.dtype == "bool" and x.dtype == "f32"


def test_derived_and_auto_dims():
    s = sig_shapes("fn f(x: [b 16gh], y: [(gh 16) n+1], z: [(h w)], u: [h w]) -> [b] = x[0..b]\n"
                   .replace("-> [b] = x[0..b]", "-> [h w] = u"))
    x, y, z, _ = s.params
    assert x.axes[1] == ("derived", "gh", 16, 0)
    assert y.axes == [("derived", "gh", 16, 0), ("derived", "n", 1, 1)]
    assert z.axes[0][0] == "auto"
    assert s.mins["n"] == 0 and s.mins["gh"] == 1 and s.mins["b"] == 1


def test_minus_one_needs_a_least_value_of_two():
    s = sig_shapes("fn f(x: [n-1], y: [3]) -> [3] = y\n")
    assert s.mins["n"] == 2 and s.examples["n"] >= 2
    assert s.params[0].example[0] >= 1


def test_example_sizes_are_distinct_from_every_other_size():
    s = sig_shapes("dim D = 3\nfn f(x: [a b c D], y: [2 4 5 2*a], z: [a+1]) -> [D] = x[0, 0, 0]\n")
    ex = s.examples
    sizes = [ex["a"], ex["b"], ex["c"], 2 * ex["a"], ex["a"] + 1]
    assert len(set(sizes)) == len(sizes)
    assert not set(sizes) & {2, 3, 4, 5}
    assert min(ex.values()) >= 2


def test_examples_are_in_their_domains():
    s = sig_shapes("fn f(p: [b C] Prob over C, i: [b] Index[C], u: [b] Unit, m: [b] Mask)"
                   " -> [b] = u\n")
    p, i, u, m = s.params
    assert p.domain[:2] == ("Prob", 1)
    assert i.domain[0] == "Index" and i.dtype == "i64"
    assert u.domain[0] == "Unit" and m.domain is None


def test_modes_are_baked_into_the_module():
    src = export_module(str(PROGRAMS / "checks.ss"), "root")
    assert "_SS_CHECKS = True" in src and "_SS_VALUES = __debug__" in src
    src = export_module(str(PROGRAMS / "checks.ss"), "root", checks="debug",
                        value_checks="always")
    assert "_SS_CHECKS = __debug__" in src and "_SS_VALUES = True" in src


def test_device_is_the_option_then_the_file_then_cpu(tmp_path):
    src = export_module(str(EXAMPLES / "attention.ss"))
    assert "_SS_DEVICE = 'cpu'" in src
    assert "_SS_DEVICE = 'cuda:1'" in export_module(str(EXAMPLES / "attention.ss"),
                                                    devices="cuda[1]")
    f = tmp_path / "dev.ss"
    f.write_text("devices cuda\nexport fn f(x: [n]) -> [n] = x\n")
    assert "_SS_DEVICE = 'cuda'" in export_module(str(f))
    assert device_name("mps") == "mps"
    with pytest.raises(ValueError):
        device_name("tpu")


def test_module_holds_only_what_the_function_reaches(tmp_path):
    f = tmp_path / "mixed.ss"
    f.write_text("import python torch\n\nfn host() -> [3]:\n    return torch.zeros(3) as [3]\n\n"
                 "fn helper(x: [n]) -> [n] = x + 1.0\n\n"
                 "export fn f(x: [n]) -> [n] = helper(x)\n")
    src = export_module(str(f))
    assert "def _unchecked_f(" in src and "def _unchecked_helper(" in src
    assert "_unchecked_host" not in src and "import torch\n" not in src.split("\n")[0]
    assert src.splitlines()[0].startswith("import torch as _ss_torch; import einops")


def test_module_is_laid_out_on_the_ss_lines():
    src = export_module(str(EXAMPLES / "attention.ss")).splitlines()
    ss = (EXAMPLES / "attention.ss").read_text().splitlines()
    line = next(i for i, t in enumerate(ss) if t.startswith("export fn causal_attention"))
    assert src[line].startswith("def _unchecked_causal_attention(x, w_qkv, w_o):")
    assert "scaled_dot_product_attention" in src[line + 2]




def test_unknown_size_of_a_parameter_is_a_dim_with_a_valid_name():
    s = sig_shapes("dim D = 4\nfn f(x: [?k D], y: [k]) -> [D] = x[0]\n")
    assert sorted(s.names.values()) == ["k", "k_1"]
    assert all(n.isidentifier() for n in s.names.values())


def test_public_api():
    import shapescript
    import shapescript_export

    for name in shapescript_export.__all__:
        assert getattr(shapescript_export, name) is not None
    assert shapescript.export is shapescript_export.export
