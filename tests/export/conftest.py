"""Fixtures of the export tests (helpers: ``export_helpers``)."""

from __future__ import annotations

from pathlib import Path

import pytest

PROGRAMS = Path(__file__).resolve().parent / "programs"


@pytest.fixture
def program_copy(tmp_path):
    """``program_copy("codec.ss")``: a copy of a test program in a temp folder."""

    def copy(name: str, src: Path = PROGRAMS) -> Path:
        dst = tmp_path / name
        dst.write_text((src / name).read_text(encoding="utf-8"), encoding="utf-8")
        return dst

    return copy
