"""Checkpoints (LANGUAGE §7, DECISIONS §19): ``save`` and ``load``, from ShapeScript and
from Python (``shapescript.save``/``shapescript.load``); never a pickle."""

from __future__ import annotations

import json
import pickle

import pytest
import torch

import shapescript

NET = '''
dim D = {D}
dim C = 3

model Net:
    param w: [D C]
    param b: [C] = zeros

model Other:
    param v: [D]

fn predict(m: Net, x: [n D]) -> [n] Index[C] = argmax(x @ m.w + m.b, over=C)

fn store(path: str, m: Net, o: Other):
    save(path, m, o)

fn restore(path: str) -> Net = load(path, Net)
'''


@pytest.fixture
def net(ss):
    return ss(NET.format(D=4), "net")


def header(path):
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    return json.loads(raw[8:8 + n])


def test_python_api():
    from shapescript.rt import checkpoint

    assert shapescript.save is checkpoint.save and shapescript.load is checkpoint.load
    assert "save" in shapescript.__all__ and "load" in shapescript.__all__


def test_save_then_load_gives_the_same_model(net, tmp_path):
    m, o = net.Net.init(seed=1), net.Other.init(seed=2)
    path = tmp_path / "ckpt.safetensors"
    net.store(str(path), m, o)                          # `save` from ShapeScript
    back = net.restore(str(path))                      # `load` from ShapeScript
    assert type(back) is net.Net
    assert all(torch.equal(a, b) for a, b in zip(m.parameters(), back.parameters()))
    x = torch.randn(50, 4)
    assert torch.equal(net.predict(back, x), net.predict(m, x))
    other = shapescript.load(path, net.Other)          # the second model, from Python
    assert torch.equal(other.v, o.v)


def test_the_metadata_names_each_model_and_its_fields(net, tmp_path):
    path = tmp_path / "ckpt.safetensors"
    shapescript.save(path, net.Net.init(seed=0), net.Other.init(seed=0), net.Net.init(seed=5))
    h = header(path)
    meta = json.loads(h["__metadata__"]["shapescript"])
    assert [m["type"] for m in meta["models"]] == ["Net", "Other", "Net"]
    assert meta["models"][0]["fields"] == [
        {"name": "w", "key": "0.w", "shape": [4, 3], "dtype": "f32"},
        {"name": "b", "key": "0.b", "shape": [3], "dtype": "f32"}]
    assert h["0.w"]["shape"] == [4, 3] and h["2.b"]["dtype"] == "F32"
    # The first model of the type asked for.
    assert torch.equal(shapescript.load(path, net.Net).w, net.Net.init(seed=0).w)


def test_load_reads_by_content_whatever_the_extension(net, tmp_path):
    path = tmp_path / "weights.pt"
    m = net.Net.init(seed=3)
    shapescript.save(path, m)
    assert torch.equal(shapescript.load(path, net.Net).w, m.w)


def test_a_field_of_the_wrong_shape_names_model_field_and_shapes(ss, tmp_path):
    wide = ss(NET.format(D=8), "wide")
    path = tmp_path / "ckpt.safetensors"
    shapescript.save(path, wide.Net.init(seed=0))
    narrow = ss(NET.format(D=4), "narrow")
    with pytest.raises(shapescript.ShapeError) as err:
        shapescript.load(path, narrow.Net)
    msg = str(err.value)
    assert msg.startswith("narrow.ss:6:5: Net.w: expected [D C] = (4, 3), got shape (8, 3) in ")
    assert str(path) in msg
    with pytest.raises(shapescript.ShapeError, match=r"Net\.w: expected \[D C\] = \(4, 3\), got shape \(8, 3\)"):
        narrow.restore(str(path))                      # from ShapeScript too


def test_a_field_of_the_wrong_dtype(net, tmp_path):
    m = net.Net.init(seed=0)
    m._parameters["b"] = torch.nn.Parameter(torch.zeros(3, dtype=torch.float64))
    path = tmp_path / "ckpt.safetensors"
    shapescript.save(path, m)
    with pytest.raises(shapescript.ShapeError, match=r"Net\.b: expected dtype f32, got f64 in "):
        shapescript.load(path, net.Net)


def test_missing_and_extra_fields(ss, tmp_path):
    full = ss("dim D = 4\nmodel Net:\n    param w: [D 3]\n    param b: [3]\n", "full")
    part = ss("dim D = 4\nmodel Net:\n    param w: [D 3]\n", "part")
    path = tmp_path / "ckpt.safetensors"
    shapescript.save(path, part.Net.init(seed=0))
    with pytest.raises(shapescript.ShapeError, match=r"full.ss:4:5: Net\.b: missing from "):
        shapescript.load(path, full.Net)
    shapescript.save(path, full.Net.init(seed=0))
    with pytest.raises(shapescript.ShapeError, match="its Net has field b that Net doesn't declare"):
        shapescript.load(path, part.Net)


def test_no_model_of_that_type(net, tmp_path):
    path = tmp_path / "ckpt.safetensors"
    shapescript.save(path, net.Other.init(seed=0))
    with pytest.raises(ValueError, match=r"holds no Net \(it holds Other\)"):
        shapescript.load(path, net.Net)


class Boom:
    """Unpickling this writes a file: proof that something was unpickled."""

    def __init__(self, flag):
        self.flag = flag

    def __reduce__(self):
        return (open, (self.flag, "w"))


def test_files_that_arent_checkpoints_fail_cleanly_and_are_never_unpickled(net, tmp_path, monkeypatch):
    from safetensors.torch import save_file

    def no_unpickling(*a, **k):
        raise AssertionError("something was unpickled")

    monkeypatch.setattr(pickle, "loads", no_unpickling)
    monkeypatch.setattr(pickle, "load", no_unpickling)
    monkeypatch.setattr(torch, "load", no_unpickling)
    monkeypatch.setattr(pickle, "Unpickler", no_unpickling)

    flag = tmp_path / "unpickled"
    bad = {
        "pickle.pt": lambda p: torch.save({"w": torch.zeros(4, 3), "x": Boom(str(flag))}, p),
        "raw.pkl": lambda p: p.write_bytes(pickle.dumps(Boom(str(flag)))),
        "plain.safetensors": lambda p: save_file({"w": torch.zeros(4, 3)}, str(p)),
        "empty.bin": lambda p: p.write_bytes(b""),
        "text.txt": lambda p: p.write_text("hello, world, this is not a checkpoint"),
        "huge_header.bin": lambda p: p.write_bytes((10 ** 12).to_bytes(8, "little") + b"{}"),
        "bad_json.bin": lambda p: p.write_bytes((4).to_bytes(8, "little") + b"{{{{"),
        "bad_meta.safetensors": lambda p: save_file({"w": torch.zeros(1)}, str(p),
                                                     metadata={"shapescript": "not json"}),
    }
    for name, make in bad.items():
        path = tmp_path / name
        make(path)
        with pytest.raises(ValueError) as err:
            shapescript.load(path, net.Net)
        msg = str(err.value)
        assert not isinstance(err.value, shapescript.ShapeError), name
        assert msg.startswith(f"{path} is not a ShapeScript checkpoint ("), (name, msg)
        assert "`save` writes one" in msg, name
    assert not flag.exists()
    assert "torch.save" in _message(shapescript.load, tmp_path / "pickle.pt", net.Net)
    assert "without ShapeScript's metadata" in _message(shapescript.load, tmp_path / "plain.safetensors", net.Net)


def _message(f, *args):
    try:
        f(*args)
    except ValueError as err:
        return str(err)
    raise AssertionError("no error")


def test_save_needs_models(net, tmp_path):
    with pytest.raises(TypeError, match="not a ShapeScript model"):
        shapescript.save(tmp_path / "x.safetensors", torch.zeros(2))
    with pytest.raises(TypeError, match="at least one model"):
        shapescript.save(tmp_path / "x.safetensors")
    with pytest.raises(TypeError, match="model class"):
        shapescript.load(tmp_path / "x.safetensors", torch.nn.Linear)


def test_save_replaces_the_file_and_leaves_no_temporary(net, tmp_path):
    path = tmp_path / "ckpt.safetensors"
    shapescript.save(path, net.Net.init(seed=0))
    shapescript.save(path, net.Net.init(seed=1))
    assert torch.equal(shapescript.load(path, net.Net).w, net.Net.init(seed=1).w)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt.safetensors", "net.ss"]


def test_load_puts_tensors_on_the_programs_device(net, tmp_path):
    path = tmp_path / "ckpt.safetensors"
    shapescript.save(path, net.Net.init(seed=0))
    shapescript.devices("meta")
    try:
        m = shapescript.load(path, net.Net)
        assert m.w.device.type == "meta"
    finally:
        shapescript.devices(None)
