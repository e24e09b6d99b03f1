"""Damaged checkpoints: loading raises ``ValueError`` (the content, naming the tensor or
the byte range) or ``OSError`` (the file system), never safetensors' own error, a
``TypeError`` or a crash; the format version is checked."""

from __future__ import annotations

import json
import os
import random

import pytest

from shapescript.rt import checkpoint

NET = '''
dim D = 4
dim C = 3

model Net:
    param w: [D C]
    param b: [C] = zeros

fn store(path: str, m: Net):
    save(path, m)
'''


@pytest.fixture
def saved(ss, tmp_path):
    """A good checkpoint of a ``Net``, and the module that declares ``Net``."""
    net = ss(NET, "dnet")
    path = tmp_path / "good.safetensors"
    net.store(str(path), net.Net.init(seed=3))
    return path, net


def split(path):
    raw = path.read_bytes()
    n = int.from_bytes(raw[:8], "little")
    return json.loads(raw[8:8 + n]), raw[8 + n:]


def join(path, header, data):
    text = json.dumps(header).encode()
    path.write_bytes(len(text).to_bytes(8, "little") + text + data)


def edited(path, edit):
    """A copy of the checkpoint ``path`` whose header ``edit`` changed in place."""
    header, data = split(path)
    edit(header)
    out = path.with_name("edited.safetensors")
    join(out, header, data)
    return out


def load(path, net):
    return checkpoint.load(str(path), net.Net)


def test_the_good_file_loads(saved):
    path, net = saved
    assert type(load(path, net)) is net.Net


def test_truncated_data_names_the_byte_range(saved):
    path, net = saved
    cut = path.with_name("cut.safetensors")
    cut.write_bytes(path.read_bytes()[:-4])
    with pytest.raises(ValueError, match=r"bytes \d+\.\.\d+ of the file, lies past the end"):
        load(cut, net)


def test_trailing_bytes(saved):
    path, net = saved
    longer = path.with_name("longer.safetensors")
    longer.write_bytes(path.read_bytes() + b"junk")
    with pytest.raises(ValueError, match=r"4 bytes after the last tensor \(bytes \d+\.\.\d+\)"):
        load(longer, net)


@pytest.mark.parametrize("offsets, message", [
    ([0, 3], "are 3 bytes, but a F32 tensor of shape"),
    ([5, 2], "are out of order"),
    ([0, 10**9], "lies past the end"),
    (["a", 4], "aren't two byte offsets"),
    ([0], "aren't two byte offsets"),
])
def test_bad_offsets_name_the_tensor(saved, offsets, message):
    path, net = saved
    bad = edited(path, lambda h: h["0.w"].update(data_offsets=offsets))
    with pytest.raises(ValueError, match=f"tensor '0.w'.*{message}"):
        load(bad, net)


def test_overlapping_tensors(saved):
    path, net = saved

    def overlap(h):
        h["0.b"]["data_offsets"] = [4, 16]  # inside the bytes of 0.w, or leaving a gap
    with pytest.raises(ValueError, match="overlaps|unused"):
        load(edited(path, overlap), net)


@pytest.mark.parametrize("shape", ["4", 4, None, [4, "3"], [4, -3], [4.0, 3], {"a": 1}])
def test_a_shape_that_isnt_a_list_of_sizes(saved, shape):
    path, net = saved
    bad = edited(path, lambda h: h["0.w"].update(shape=shape))
    with pytest.raises(ValueError, match="tensor '0.w': its shape .* isn't a list of sizes"):
        load(bad, net)


def test_an_unknown_dtype(saved):
    path, net = saved
    bad = edited(path, lambda h: h["0.w"].update(dtype="F8_E4M3"))
    with pytest.raises(ValueError, match="tensor '0.w': dtype 'F8_E4M3' isn't one"):
        load(bad, net)


@pytest.mark.parametrize("version", [2, 0, "1", None, True])
def test_the_format_version_is_checked(saved, version):
    path, net = saved

    def change(h):
        info = json.loads(h["__metadata__"]["shapescript"])
        info["version"] = version
        h["__metadata__"]["shapescript"] = json.dumps(info)
    with pytest.raises(ValueError, match="format version .*reads version 1"):
        load(edited(path, change), net)


def test_metadata_that_isnt_an_object(saved):
    path, net = saved
    bad = edited(path, lambda h: h["__metadata__"].update(shapescript="[1, 2]"))
    with pytest.raises(ValueError, match="malformed"):
        load(bad, net)


def test_a_missing_folder_is_an_oserror(saved, tmp_path):
    path, net = saved
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "no" / "such.safetensors", net)
    with pytest.raises(FileNotFoundError, match="no such folder"):
        net.store(str(tmp_path / "no" / "such.safetensors"), net.Net.init(seed=1))
    assert not (tmp_path / "no").exists()


def test_a_directory_is_refused(saved, tmp_path):
    path, net = saved
    with pytest.raises((ValueError, OSError)):
        load(tmp_path, net)


def test_random_damage_is_only_ever_a_valueerror(saved):
    """Bit flips and cuts anywhere in the file: loaded (a flip in the data), or a
    ValueError (ShapeError is one), never another exception."""
    path, net = saved
    good = path.read_bytes()
    rng = random.Random(7)
    bad = path.with_name("flipped.safetensors")
    outcomes = set()
    for _ in range(300):
        data = bytearray(good)
        if rng.random() < 0.8:
            for _ in range(rng.randint(1, 3)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        else:
            del data[rng.randrange(len(data)):]
        bad.write_bytes(bytes(data))
        try:
            load(bad, net)
            outcomes.add("loaded")
        except ValueError:
            outcomes.add("ValueError")
    assert outcomes == {"loaded", "ValueError"}
    os.unlink(bad)
