"""What the editor shows agrees with ``shapescript check``: an imported module that
isn't UTF-8 is an error at the import, ``# noqa`` hides the same diagnostics (E1901 for
an unused one), and a quick fix makes the edit ``check --fix`` makes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from lsp_helpers import open_doc, pos_of
from shapescript_cli.main import main

pytestmark = pytest.mark.asyncio(loop_scope="function")


async def test_an_import_that_is_not_utf8_is_an_error_at_the_import(client: LanguageClient,
                                                                    tmp_path: Path):
    (tmp_path / "bad.ss").write_bytes(b"dim D = 4\n# caf\xe9\nfn g(x: [n D]) -> [n D] = x\n")
    text = "import bad\n\nfn f(x: [n bad.D]) -> [n bad.D] = bad.g(x)\n"
    uri = await open_doc(client, tmp_path / "main.ss", text)
    r = CliRunner().invoke(main, ["check", str(tmp_path / "main.ss")])
    assert r.exit_code == 1 and "E0101" in r.stdout
    (d,) = client.diagnostics[uri]
    assert d.code == "E0101" and d.severity == lsp.DiagnosticSeverity.Error
    assert "bad.ss" in d.message and "UTF-8" in d.message
    assert d.range.start == pos_of(text, "import bad")
    (rel,) = d.related_information
    assert rel.location.uri == (tmp_path / "bad.ss").as_uri()
    assert rel.location.range.start == lsp.Position(1, 5)


async def test_noqa_in_the_editor(client: LanguageClient, tmp_path: Path):
    text = ("dim D = 4\nfn g(x: [n D]) -> [n] = x  # noqa: E0402\n"
            "fn h(x: [n]) -> [n] = x  # noqa: E0402\n")
    uri = await open_doc(client, tmp_path / "m.ss", text)
    (d,) = client.diagnostics[uri]
    assert d.code == "E1901" and d.severity == lsp.DiagnosticSeverity.Warning
    # On the unused code of the third line (the second line's hides its E0402).
    third = text.split("\n")[2]
    assert d.range.start == lsp.Position(2, third.index("E0402"))
    assert d.range.end == lsp.Position(2, third.index("E0402") + 5)


async def test_a_quick_fix_is_the_edit_check_fix_makes(client: LanguageClient,
                                                       tmp_path: Path):
    text = "fn double(x: [n]) -> [n] = 2x\n\nfn f(x: [b n], y: [n]) -> [b n] = add(x, y[0)\n"
    uri = await open_doc(client, tmp_path / "m.ss", text)
    edits = []
    for d in client.diagnostics[uri]:
        actions = await client.text_document_code_action_async(lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), d.range, lsp.CodeActionContext(diagnostics=[d])))
        for action in actions:
            edits += action.edit.changes[uri]
    assert sorted(e.new_text for e in edits) == ["2 * x", "]"]
    # `]` goes before the `)` that closes the outer bracket, not before the `[`.
    (close,) = [e for e in edits if e.new_text == "]"]
    assert close.range.start == pos_of(text, ")\n")
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                    reverse=True):
        s, t = e.range.start, e.range.end
        assert s.line == t.line
        lines[s.line] = lines[s.line][:s.character] + e.new_text + lines[s.line][t.character:]
    by_editor = "\n".join(lines)
    path = tmp_path / "fixed.ss"
    path.write_text(text)
    CliRunner().invoke(main, ["check", "--fix", str(path)])
    assert path.read_text() == by_editor == (
        "fn double(x: [n]) -> [n] = 2 * x\n\nfn f(x: [b n], y: [n]) -> [b n] = add(x, y[0])\n")
