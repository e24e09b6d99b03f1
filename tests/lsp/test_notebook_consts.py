"""Consts in `%%shapescript` cells: a const becomes a notebook name (its value), later
cells see it, and a later cell that declares it again replaces it. The magic is driven
directly, with a stand-in for IPython's shell (tests/notebook runs a real kernel)."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("torch")

from shapescript_notebook import CellMagic  # noqa: E402


def test_a_const_is_a_notebook_name_and_can_be_declared_again(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    shell = SimpleNamespace(user_ns={}, execution_count=None)
    magic = CellMagic(shell)
    magic("", "dim D = 8\n## The norm's epsilon.\nconst eps = 1e-6\nconst half = D / 2\n")
    assert shell.user_ns["eps"] == 1e-6 and shell.user_ns["half"] == 4.0
    # A later cell uses it; another declares it again, which replaces it.
    magic("", "const twice = eps * 2\n")
    assert shell.user_ns["twice"] == 2e-6
    magic("", "const eps = 0.5\nconst again = eps + 1\n")
    assert shell.user_ns["eps"] == 0.5 and shell.user_ns["again"] == 1.5
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".ss")]
