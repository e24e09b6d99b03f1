"""An imported module open in the editor with unsaved edits: the files importing it are
checked against its buffer, and again at each of its edits, end to end; a new file
never saved is a module while its buffer is open."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_helpers import open_doc, until
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="function")

LAYERS = "dim D = 8\n\n## A block.\nfn block(x: [b D]) -> [b D] = x * 2.0\n"
MAIN = "from layers import block, D\n\nfn f(x: [b D]) -> [b D]:\n    y = block(x)\n    return y\n"
# The buffer's `block` drops an axis: `f` returns the wrong shape.
EDITED = LAYERS.replace("-> [b D] = x * 2.0", "-> [b] = sum(x, over=D)")


def _edit(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [lsp.TextDocumentContentChangeWholeDocument(text=text)]))


async def test_an_unsaved_edit_in_an_imported_file_rechecks_its_importer(
        client: LanguageClient, tmp_path: Path):
    luri = await open_doc(client, tmp_path / "layers.ss", LAYERS)
    muri = await open_doc(client, tmp_path / "main.ss", MAIN)
    assert not client.diagnostics[muri]
    # layers.ss is edited and not saved: main.ss is checked against the buffer.
    _edit(client, luri, 2, EDITED)
    await until(client, muri, ["E0402"])
    assert (tmp_path / "layers.ss").read_text() == LAYERS  # nothing was saved
    (d,) = client.diagnostics[muri]
    assert d.range.start.line == 4  # `return y`: y is now [b]
    # Hover and the inlay hints in main.ss see the buffer's `block` too.
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(muri), lsp.Position(3, 9)))
    assert "fn block(x: [b D]) -> [b]" in h.contents.value
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        lsp.TextDocumentIdentifier(muri), lsp.Range(lsp.Position(0, 0), lsp.Position(9, 0))))
    assert [h.label for h in hints] == [": [b] f32"]
    # Undone in the buffer: main.ss is clean again.
    _edit(client, luri, 3, LAYERS)
    await until(client, muri, [])


async def test_closing_an_unsaved_import_goes_back_to_the_file_on_disk(
        client: LanguageClient, tmp_path: Path):
    luri = await open_doc(client, tmp_path / "layers.ss", LAYERS)
    muri = await open_doc(client, tmp_path / "main.ss", MAIN)
    _edit(client, luri, 2, EDITED)
    await until(client, muri, ["E0402"])
    # A request on main.ss right after an edit of layers.ss sees the edit.
    _edit(client, luri, 3, LAYERS)
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(muri), lsp.Position(3, 9)))
    assert "fn block(x: [b D]) -> [b D]" in h.contents.value
    _edit(client, luri, 4, EDITED)
    await until(client, muri, ["E0402"])
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(
        lsp.TextDocumentIdentifier(luri)))
    await until(client, muri, [])


def _open_unsaved(client: LanguageClient, path: Path, text: str) -> str:
    """Opens a new file in the server without writing it (a buffer never saved)."""
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="shapescript", version=1, text=text)))
    return uri


async def test_a_new_file_never_saved_is_a_module_while_it_is_open(
        client: LanguageClient, tmp_path: Path):
    main = MAIN.replace("from layers", "from newmod")
    muri = await open_doc(client, tmp_path / "main.ss", main)
    assert [d.code for d in client.diagnostics[muri]] == ["E0204"]
    # The user creates newmod.ss in the editor: main.ss finds it, unsaved.
    nuri = _open_unsaved(client, tmp_path / "newmod.ss", LAYERS)
    await until(client, muri, [])
    assert not (tmp_path / "newmod.ss").exists()
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(muri), lsp.Position(3, 9)))
    assert "fn block(x: [b D]) -> [b D]" in h.contents.value and "A block." in h.contents.value
    (loc,) = await client.text_document_definition_async(lsp.DefinitionParams(
        lsp.TextDocumentIdentifier(muri), lsp.Position(3, 9)))
    assert loc.uri == nuri and loc.range.start.line == 3
    # Its edits re-check main.ss, as an open file's do.
    _edit(client, nuri, 2, EDITED)
    await until(client, muri, ["E0402"])
    # Closed without saving: the module is missing again.
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(
        lsp.TextDocumentIdentifier(nuri)))
    await until(client, muri, ["E0204"])


async def test_saving_a_new_module_changes_nothing_for_its_importers(
        client: LanguageClient, tmp_path: Path):
    nuri = _open_unsaved(client, tmp_path / "newmod.ss", LAYERS)
    assert not await until(client, nuri, lambda ds: ds is not None)  # its first check
    # Both forms of import find the buffer.
    imports = "import newmod\n\nfn g(x: [b newmod.D]) -> [b newmod.D] = newmod.block(x)\n"
    iuri = await open_doc(client, tmp_path / "plain.ss", imports)
    muri = await open_doc(client, tmp_path / "main.ss", MAIN.replace("from layers", "from newmod"))
    assert not client.diagnostics[muri] and not client.diagnostics[iuri]
    # Saved, then closed: the file on disk is the buffer's text, and the importers stay
    # as they are (the hover's answer comes after the diagnostics the save and the
    # close published).
    (tmp_path / "newmod.ss").write_text(LAYERS, encoding="utf-8")
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(nuri)))
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(
        lsp.TextDocumentIdentifier(nuri)))
    await until(client, muri, [])
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(muri), lsp.Position(3, 9)))
    assert "fn block(x: [b D]) -> [b D]" in h.contents.value
    assert not client.diagnostics[iuri]
