"""Atomic writes: a reader sees the old file or the new one, never part of one."""

from __future__ import annotations

import os

import pytest

from shapescript.files import atomic_dir, atomic_write, atomic_write_with, same_file


def test_atomic_write_replaces_whole(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("old")
    atomic_write(p, "new")
    assert p.read_text() == "new" and os.listdir(tmp_path) == ["out.txt"]


def test_a_failed_writer_leaves_the_old_file_and_no_temporary(tmp_path):
    p = tmp_path / "out.bin"
    p.write_bytes(b"old")

    def half(tmp: str) -> None:
        with open(tmp, "wb") as f:
            f.write(b"ne")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        atomic_write_with(p, half)
    assert p.read_bytes() == b"old" and os.listdir(tmp_path) == ["out.bin"]


def test_a_folder_appears_complete_or_not_at_all(tmp_path):
    target = tmp_path / "model_hf"

    def fill(d: str) -> None:
        (open(os.path.join(d, "config.json"), "w")).write("{}")

    atomic_dir(target, fill)
    assert os.listdir(target) == ["config.json"]

    def broken(d: str) -> None:
        open(os.path.join(d, "model.safetensors"), "w").write("partial")
        raise ValueError("verification failed")

    with pytest.raises(ValueError):
        atomic_dir(target, broken)
    assert os.listdir(target) == ["config.json"]          # the old folder, untouched
    assert os.listdir(tmp_path) == ["model_hf"]           # no temporary folders left
    with pytest.raises(ValueError):
        atomic_dir(tmp_path / "new_hf", broken)
    assert os.listdir(tmp_path) == ["model_hf"]


def test_same_file_sees_through_links(tmp_path):
    a = tmp_path / "a.ss"
    a.write_text("x")
    (tmp_path / "b.ss").symlink_to(a)
    assert same_file(a, tmp_path / "b.ss") and same_file(a, tmp_path / "." / "a.ss")
    assert not same_file(a, tmp_path / "c.ss")
