"""Every editor question, at every kind of position, on broken and half-typed text:
an answer, never an exception (the server would only log it, and answer nothing)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from shapescript_lsp.completion import completion
from shapescript_lsp.diagnostics import diagnostics
from shapescript_lsp.documents import Document
from shapescript_lsp.hover import hover
from shapescript_lsp.navigation import definition, references
from shapescript_lsp.outline import document_symbols, inlay_hints
from shapescript_lsp.signatures import signature_help
from shapescript_lsp.tokens import semantic_tokens

SPOTTER = Path(__file__).resolve().parents[2] / "examples" / "spotter" / "spotter.ss"


def _ask_everything(doc: Document, rng: random.Random, n: int) -> None:
    lines = doc.text.split("\n")
    diagnostics(doc)
    document_symbols(doc)
    semantic_tokens(doc)
    inlay_hints(doc, lsp.Range(lsp.Position(0, 0), lsp.Position(len(lines), 0)))
    for _ in range(n):
        line = rng.randrange(len(lines))
        pos = lsp.Position(line, rng.randrange(len(lines[line]) + 1))
        hover(doc, pos)
        definition(doc, pos)
        references(doc, pos, True)
        completion(doc, pos)
        signature_help(doc, pos)


@pytest.mark.parametrize("seed", range(4))
def test_questions_on_edited_text_never_raise(seed: int, tmp_path: Path):
    rng = random.Random(seed)
    text = SPOTTER.read_text()
    doc = Document((tmp_path / "spotter.ss").as_uri())
    doc.update(text)
    _ask_everything(doc, rng, 150)
    for _ in range(15):
        lines = doc.text.split("\n")
        k = rng.randrange(len(lines))
        cut = rng.randrange(len(lines[k]) + 1)
        choice = rng.random()
        if choice < 0.4:  # a half-typed line
            lines[k] = lines[k][:cut]
        elif choice < 0.7:
            lines[k] = lines[k][:cut] + rng.choice(["(", "[", "|>", ".", "over=", ", ", "->", "#"]) \
                + lines[k][cut:]
        else:
            del lines[k]
        doc.update("\n".join(lines))
        _ask_everything(doc, rng, 20)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_questions_on_non_ascii_lines_never_raise(encoding: str, tmp_path: Path):
    """Comments and strings with `é`, `→` and emoji, and positions anywhere in units of
    the encoding: past a line's end, inside a surrogate pair or a UTF-8 sequence."""
    rng = random.Random(encoding)
    lines = SPOTTER.read_text().split("\n")
    for k in rng.sample(range(len(lines)), 40):
        if lines[k].strip() and '"' not in lines[k]:
            lines[k] += rng.choice(["  # é → 😀", "  # 😀😀", "  # ∑ over C — ok"])
    doc = Document((tmp_path / "spotter.ss").as_uri(), encoding=encoding)
    doc.update("\n".join(lines))
    assert not [d for d in doc.program.diagnostics if d.is_error]
    _ask_everything(doc, rng, 150)
    for _ in range(60):
        line = rng.randrange(len(lines))
        pos = lsp.Position(line, rng.randrange(2 * len(lines[line]) + 3))
        hover(doc, pos)
        completion(doc, pos)
        signature_help(doc, pos)
        definition(doc, pos)
