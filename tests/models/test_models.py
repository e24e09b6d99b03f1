"""Models (LANGUAGE §7, DECISIONS §18): the compiled class, ``init``, ``M(**fields)``,
field access and assignment, from ShapeScript and from Python."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from shapescript.compiler import check_source

NET = '''
dim D = 4
dim F = 6
dim L = 2
dim C = 3

## A tiny classifier.
model Net:
    ## Stacked layers: a leading axis.
    param w1: [L D F] = normal(std=0.02)
    param w2: [L F D]
    ## Multiplies each feature.
    param scale: [D] = ones
    param bias: [D] = zeros
    param head: [D C] = uniform(-0.1, 0.1)
    param b: [C] = normal(mean=1.0, std=2.0)
    param g: [D]

fn forward(m: Net, x: [n D]) -> [n C]:
    for l in 0..L:
        x = x + relu(x @ m.w1[l]) @ m.w2[l]
    return (x * m.scale + m.bias) @ m.head + m.b

fn fresh(seed: int) -> Net = Net.init(seed=seed)

fn rebuilt(m: Net) -> Net:
    return Net(w1=m.w1, w2=m.w2, scale=m.scale, bias=m.bias, head=m.head, b=m.b, g=m.g)

fn reset(m: Net):
    m.bias = ones[D]
    m.scale = zeros[D]

fn bias_of(m: Net) -> [D] = m.bias
'''

FIELDS = ["w1", "w2", "scale", "bias", "head", "b", "g"]


@pytest.fixture
def net(ss):
    return ss(NET, "net")


def test_a_model_is_an_nn_module_whose_parameters_are_its_fields(net):
    m = net.Net.init(seed=0)
    assert isinstance(m, torch.nn.Module)
    assert [n for n, _ in m.named_parameters()] == FIELDS
    assert list(m.state_dict()) == FIELDS
    shapes = {n: tuple(p.shape) for n, p in m.named_parameters()}
    assert shapes == {"w1": (2, 4, 6), "w2": (2, 6, 4), "scale": (4,), "bias": (4,),
                      "head": (4, 3), "b": (3,), "g": (4,)}
    assert all(p.dtype == torch.float32 and p.requires_grad for p in m.parameters())
    assert isinstance(m.w1, torch.nn.Parameter)


def test_init_draws_each_field_in_order_from_one_generator(net):
    m = net.Net.init(seed=7)
    g = torch.Generator().manual_seed(7)
    expected = {
        "w1": torch.randn(2, 4, 6, generator=g) * 0.02 + 0.0,
        "w2": torch.randn(2, 6, 4, generator=g) / 6 ** 0.5,     # the second-to-last axis
        "scale": torch.ones(4),
        "bias": torch.zeros(4),
        "head": torch.rand(4, 3, generator=g) * 0.2 - 0.1,
        "b": torch.randn(3, generator=g) * 2.0 + 1.0,
        "g": torch.zeros(4),                                     # rank 1: zeros
    }
    for name, want in expected.items():
        assert torch.equal(getattr(m, name).detach(), want), name


def test_the_default_init_is_the_books(tmp_path, ss):
    # train.py in chapter 10: randn(*shape, generator=g) / shape[-2] ** 0.5, in order.
    mod = ss('''
dim P = 4
dim D = 32
dim N = 16
dim Dt = 64
dim L = 2
model Spotter:
    param w_e: [P*P D]
    param tw1: [L N Dt]
''', "spot")
    g = torch.Generator().manual_seed(0)
    m = mod.Spotter.init(seed=0)
    assert torch.equal(m.w_e.detach(), torch.randn(16, 32, generator=g) / 16 ** 0.5)
    assert torch.equal(m.tw1.detach(), torch.randn(2, 16, 64, generator=g) / 16 ** 0.5)


def test_init_is_deterministic_across_runs(net, tmp_path):
    a, b, c = net.Net.init(seed=3), net.Net.init(seed=3), net.Net.init(seed=4)
    assert all(torch.equal(x, y) for x, y in zip(a.parameters(), b.parameters()))
    assert not torch.equal(a.w2, c.w2)
    assert torch.equal(net.fresh(3).w2, a.w2)                 # from ShapeScript too
    assert torch.equal(net.Net.init().w2, net.Net.init(seed=0).w2)
    # Another process, with torch's global generator in another state: the same weights.
    code = (
        "import sys, torch; torch.manual_seed(123); torch.randn(5)\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "import shapescript; shapescript.install(); import net\n"
        "m = net.Net.init(seed=3)\n"
        "print(repr([p.detach().double().sum().item() for p in m.parameters()]))\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == repr([p.detach().double().sum().item() for p in a.parameters()])


def test_init_places_weights_on_the_programs_device(net):
    import shapescript

    shapescript.devices("meta")
    try:
        m = net.Net.init(seed=0)
        assert all(p.device.type == "meta" for p in m.parameters())
    finally:
        shapescript.devices(None)
    assert net.Net.init(seed=0).w1.device.type == "cpu"


def test_construction_from_tensors_is_checked(net):
    src = net.Net.init(seed=1)
    fields = {n: p.detach().clone() for n, p in src.named_parameters()}
    m = net.Net(**fields)
    assert all(torch.equal(getattr(m, n), fields[n]) for n in FIELDS)
    assert all(isinstance(getattr(m, n), torch.nn.Parameter) for n in FIELDS)
    with pytest.raises(TypeError, match="missing the field head"):
        net.Net(**{k: v for k, v in fields.items() if k != "head"})
    with pytest.raises(TypeError, match="has no field 'extra'"):
        net.Net(**fields, extra=torch.zeros(1))
    with pytest.raises(ValueError, match=r"net.ss:\d+:\d+: Net.head: expected \[D C\] = \(4, 3\), "
                                         r"got shape \(3, 4\)"):
        net.Net(**{**fields, "head": torch.zeros(3, 4)})
    with pytest.raises(ValueError, match="Net.bias: expected dtype f32"):
        net.Net(**{**fields, "bias": torch.zeros(4, dtype=torch.float64)})
    # From ShapeScript: `Net(w1=…, …)` builds one too.
    again = net.rebuilt(m)
    assert all(torch.equal(getattr(again, n), getattr(m, n)) for n in FIELDS)


def test_fields_are_typed_and_models_checked_at_the_boundary(net):
    import shapescript

    m = net.Net.init(seed=0)
    x = torch.randn(5, 4)
    y = net.forward(m, x)
    assert y.shape == (5, 3)
    with pytest.raises(TypeError, match="expected a Net"):
        net.forward(object(), x)
    m._parameters["head"] = torch.nn.Parameter(torch.zeros(4, 5))     # behind its back
    with pytest.raises(shapescript.ShapeError, match=r"m\.head: expected \[D C\]"):
        net.forward(m, x)
    diags = check_source(NET + "fn bad(m: Net) -> [D] = m.head\n", "net.ss")
    assert [d.code for d in diags] == ["E0402"]            # `m.head` is [D C]
    diags = check_source(NET + "fn bad(m: Net) -> [D] = m.nope\n", "net.ss")
    assert [d.code for d in diags] == ["E0901"]


def test_assigning_a_field_keeps_the_parameter(net):
    import shapescript

    m = net.Net.init(seed=0)
    bias, scale = m.bias, m.scale
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    net.reset(m)                                    # ShapeScript: m.bias = ones[D] …
    assert m.bias is bias and m.scale is scale
    assert torch.equal(m.bias, torch.ones(4)) and torch.equal(m.scale, torch.zeros(4))
    assert any(p is bias for group in opt.param_groups for p in group["params"])
    # From Python: checked against the field's type, copied into the same Parameter.
    m.bias = torch.full((4,), 2.0)
    assert m.bias is bias and torch.equal(net.bias_of(m), torch.full((4,), 2.0))
    with pytest.raises(shapescript.ShapeError, match=r"Net\.bias: expected \[D\] = \(4,\), got shape \(5,\)"):
        m.bias = torch.zeros(5)
    with pytest.raises(shapescript.ShapeError, match="Net.bias: expected dtype f32, got i64"):
        m.bias = torch.zeros(4, dtype=torch.int64)
    with pytest.raises(TypeError, match="expected a tensor"):
        m.bias = 3.0
    m.other = 5                                     # not a field: a plain attribute
    assert m.other == 5


def test_changing_a_field_is_checked_statically(net):
    diags = check_source(NET + "fn bad(m: Net):\n    m.bias = zeros[C]\n", "net.ss")
    assert [d.code for d in diags] == ["E0903"]


def test_torch_tools_work_on_models(net):
    m = net.Net.init(seed=0)
    other = net.Net.init(seed=1)
    other.load_state_dict(m.state_dict())
    assert torch.equal(other.w1, m.w1)
    assert m.to("cpu") is m
    x = torch.randn(3, 4)
    net.forward(m, x).sum().backward()
    assert m.head.grad is not None and m.head.grad.shape == (4, 3)
    assert "w1: [L D F]" in repr(m)


def test_doc_comments_document_the_class(net):
    doc = net.Net.__doc__
    assert doc.startswith("A tiny classifier.")
    assert "- w1: [L D F]: Stacked layers: a leading axis." in doc
    assert "- scale: [D]: Multiplies each feature." in doc
    assert net.Net._ss_field_docs["scale"] == "Multiplies each feature."


def test_field_names_that_would_hide_module_attributes_are_rejected():
    src = "dim D = 2\nmodel M:\n    param parameters: [D]\n    param init: [D]\n    param _x: [D]\n"
    diags = check_source(src, "m.ss")
    assert [(d.code, d.line) for d in diags] == [("E0203", 3), ("E0203", 4), ("E0203", 5)]


def test_params_are_static_and_initialisers_known():
    diags = check_source("model M:\n    param w: [n 2]\n", "m.ss")
    assert [d.code for d in diags] == ["E0902"]
    diags = check_source("model M:\n    param w: [2 2] = xavier\n", "m.ss")
    assert [d.code for d in diags] == ["E0503"]


def test_models_of_an_imported_module(ss, tmp_path, monkeypatch):
    (tmp_path / "lib_models.ss").write_text(
        "dim D = 4\nmodel Lin:\n    param w: [D]\nfn loss(m: Lin, x: [n D]) -> [] = sum(x * m.w)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    use = ss('''
import lib_models

fn step(path: str) -> lib_models.Lin:
    m = lib_models.Lin.init(seed=0)
    l, g = value_and_grad(lib_models.loss, m, ones[3 lib_models.D])
    update(m, g, sgd(m, lr=0.5))
    save(path, m)
    return load(path, lib_models.Lin)
''', "use_models")
    m = use.step(str(tmp_path / "c.safetensors"))
    assert type(m).__name__ == "Lin" and torch.equal(m.w.detach(), torch.full((4,), -1.5))
