"""Inlined runtime helpers (DECISIONS §25): the source ``helper_source`` returns runs with
only torch and einops, and behaves as ``shapescript.rt`` does."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap

import pytest
import torch

import shapescript.rt as rt
from shapescript.rt.standalone import helper_names, helper_source

PUBLIC = ["check_args", "check_as", "make_checker", "make_as_checker", "TensorSpec",
          "HostSpec", "ModelSpec", "DomainSpec", "softmax", "log_softmax", "logsumexp",
          "layer_norm", "rms_norm", "cross_entropy", "cumsum", "dropout", "train",
          "is_training", "stack_map", "set_field", "declare_module_device", "devices",
          "current_device", "call_device", "ShapeError", "DeviceError", "DomainError"]


def run_ns(src):
    ns = {"__name__": "standalone_module"}
    exec(compile(src, "<standalone>", "exec"), ns)     # under this file's __future__ import
    return ns


def test_every_public_helper_is_inlinable():
    assert set(PUBLIC) <= set(helper_names())
    for name in helper_names():
        run_ns(helper_source([name]))


def test_output_is_deterministic_and_independent_of_the_order_asked():
    a = helper_source(["softmax", "check_args", "dropout"])
    assert a == helper_source(["softmax", "check_args", "dropout"])
    assert a == helper_source(["dropout", "softmax", "check_args"])


def test_only_what_is_needed():
    src = helper_source(["softmax"])
    assert "def softmax" in src and "def check_args" not in src and "import torch" in src
    assert "einops" not in src and "from shapescript" not in src and "import shapescript" not in src


def test_the_errors_subclass_shapescripts_when_importable():
    ns = run_ns(helper_source(["check_args"]))
    assert issubclass(ns["ShapeError"], rt.ShapeError)
    assert issubclass(ns["DeviceError"], rt.DeviceError)
    assert issubclass(ns["DomainError"], rt.DomainError)
    spec = ns["TensorSpec"]("x", "tokens.ss:3:10", "[b n D]", ("b", "n", 32), "f32")
    with pytest.raises(rt.ShapeError) as info:                # caught as ShapeScript's
        ns["check_args"]((spec,), (torch.zeros(2, 3, 4),))
    assert type(info.value) is ns["ShapeError"]
    assert str(info.value) == "tokens.ss:3:10: x: expected [b n D] = (b, n, 32), got shape (2, 3, 4)"


def test_prefix_and_namespace():
    src = helper_source(["check_args", "softmax", "TensorSpec", "dropout"], prefix="_ss_",
                        namespace="_ss_rt")
    tree = ast.parse(src)
    top = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, ast.Assign):
            top |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            top |= {a.asname or a.name for a in node.names}
    assert all(n.startswith("_ss_") for n in top), sorted(n for n in top if not n.startswith("_ss_"))
    ns = run_ns(src)
    assert {"ShapeError", "DeviceError", "DomainError", "_ss_rt"} <= set(ns)
    helpers = ns["_ss_rt"]
    x = torch.randn(3, 4)
    assert torch.equal(helpers.softmax(x, 1), torch.softmax(x, 1))
    spec = helpers.TensorSpec("x", "t.ss:1:1", "[n D]", ("n", 4), "f32")
    assert helpers.check_args((spec,), (x,))["n"] == 3
    with pytest.raises(rt.ShapeError):
        helpers.check_args((spec,), (torch.zeros(3, 5),))
    # the user's names can't clash with the helpers
    ns["softmax"] = ns["check_args"] = ns["torch"] = None
    assert helpers.check_args((spec,), (x,))["n"] == 3


def test_inlined_dropout_follows_shapescripts_training_mode():
    helpers = run_ns(helper_source(["dropout"], prefix="_ss_", namespace="_ss_rt"))["_ss_rt"]
    x = torch.ones(1000)
    assert helpers.dropout(x, 0.5) is x
    with rt.train():
        assert (helpers.dropout(x, 0.5) == 0).any()


SCRIPT = textwrap.dedent('''
    import importlib.abc, sys
    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "shapescript" or name.startswith("shapescript."):
                raise ImportError("blocked: " + name)
    sys.meta_path.insert(0, Block())
    import torch
    src = sys.stdin.read()
    ns = {"__name__": "standalone_module"}
    exec(compile(src, "<standalone>", "exec"), ns)
    assert "shapescript" not in sys.modules
    h = ns["_ss_rt"]
    assert ns["ShapeError"].__mro__[1] is ValueError
    spec = h.TensorSpec("x", "tokens.ss:3:10", "[b n D]", ("b", "n", 32), "f32")
    try:
        h.check_args((spec,), (torch.zeros(2, 3, 4),))
    except ns["ShapeError"] as e:
        print("ShapeError:", e)
    p = h.TensorSpec("p", "head.ss:6:12", "[b C] Prob over C", ("b", 4), "f32",
                     h.DomainSpec("Prob", over=1, label="C"))
    probs = torch.full((6, 4), 0.25)
    probs[4] = torch.tensor([0.5, 0.2, 0.13, 0.1])
    try:
        h.check_args((p,), (probs,))
    except ns["DomainError"] as e:
        print("DomainError:", e)
    a = h.make_as_checker(h.TensorSpec("", "spotter.ss:86:25", "[P*P D]", (16, 48), "f32"))
    try:
        a(torch.zeros(16, 32), {})
    except ns["ShapeError"] as e:
        print("ShapeError:", e)
    h.declare_module_device("m.ss", "cuda[0]")
    try:
        h.check_args((spec,), (torch.zeros(2, 3, 32),))
    except ns["DeviceError"] as e:
        print("DeviceError:", e)
    x = torch.randn(2, 5, 3)
    assert torch.equal(h.layer_norm(x, 1), torch.nn.functional.layer_norm(
        x.movedim(1, -1), (5,)).movedim(-1, 1))
    assert h.dropout(x, 0.5) is x
    with h.train():
        assert h.is_training()
    print("ok")
''')


def test_runs_without_shapescript():
    src = helper_source(PUBLIC, prefix="_ss_", namespace="_ss_rt")
    proc = subprocess.run([sys.executable, "-c", SCRIPT], input=src, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "ShapeError: tokens.ss:3:10: x: expected [b n D] = (b, n, 32), got shape (2, 3, 4)",
        "DomainError: head.ss:6:12: p: expected Prob over C, got a sum of 0.93 over C at (4,)",
        "ShapeError: spotter.ss:86:25: expected [P*P D] = (16, 48), got shape (16, 32)",
        "DeviceError: tokens.ss:3:10: x is on cpu, expected cuda:0",
        "ok",
    ]
