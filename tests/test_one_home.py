"""Small facts written once in the packages' source: a second copy is where they drift."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(p for p in ROOT.glob("packages/*/src/**/*.py"))


def _where(pattern: str) -> list[str]:
    rx = re.compile(pattern)
    return [p.relative_to(ROOT).as_posix() for p in SOURCES
            if rx.search(p.read_text(encoding="utf-8"))]


def test_the_internal_error_note_is_written_once():
    assert _where(r"this is a bug in ShapeScript, not in your program; please report it, with this") \
        == ["packages/shapescript-core/src/shapescript/diagnostics.py"]


def test_the_class_domains_are_written_once():
    assert _where(r"""["']Logit["'], ["']LogProb["'], ["']Prob["']""") \
        == ["packages/shapescript-core/src/shapescript/vocab.py"]


def test_the_collector_is_paused_in_one_place():
    assert _where(r"\bgc\.disable\(\)") == ["packages/shapescript-core/src/shapescript/gc_pause.py"]


def test_a_runtime_spec_leaves_out_the_plain_domains():
    from shapescript.vocab import CLASS_DOMAINS, PLAIN_DOMAINS, UNCHECKED_DOMAINS

    # Both facts, each named: nothing to check at run time, and a spec without a domain.
    assert PLAIN_DOMAINS == UNCHECKED_DOMAINS - CLASS_DOMAINS == {"Real", "Int", "Mask"}
    assert _where(r"""\(["']Real["'], ["']Int["'], ["']Mask["']\)""") == []
