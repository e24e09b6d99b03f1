"""Positions on lines with text outside ASCII (`é`, `→`, an emoji in a comment or a
string), end to end: the server speaks the position encoding it agreed with the client,
UTF-16 code units by default, UTF-8 or UTF-32 when the client offers them, in what it
sends (diagnostics, hover ranges, definitions, inlay hints, semantic tokens) and in
what it receives (requests' positions, incremental edits)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsp_helpers import open_doc, published
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from shapescript_lsp.tokens import TOKEN_TYPES

pytestmark = pytest.mark.asyncio(loop_scope="function")

TEXT = """\
dim D = 4  # é → 😀

fn f(x: [n D]) -> [n D]:
    h = x * 2.0  # 😀😀
    print("é→😀", mean(x, over=D), h)
    return h
"""
UNITS = {"utf-16": lambda s: len(s.encode("utf-16-le")) // 2,
         "utf-8": lambda s: len(s.encode("utf-8")), "utf-32": len}


def _pos(text: str, needle: str, encoding: str, offset: int = 0) -> lsp.Position:
    """The position of ``needle`` (plus ``offset`` characters) in ``encoding``'s units."""
    k = text.index(needle) + offset
    start = text.rfind("\n", 0, k) + 1
    return lsp.Position(text.count("\n", 0, k), UNITS[encoding](text[start:k]))


# What the client offers: nothing (UTF-16, the protocol's default), UTF-8, UTF-32 first.
@pytest_lsp.fixture(params=[None, ["utf-8"], ["utf-32", "utf-16"]],
                    config=ClientServerConfig(
                        server_command=[sys.executable, "-m", "shapescript_lsp"]))
async def client(lsp_client: LanguageClient, tmp_path: Path, request):
    caps = pytest_lsp.client_capabilities("visual-studio-code")
    caps.general.position_encodings = request.param
    result = await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=caps, root_uri=tmp_path.as_uri()))
    lsp_client.encoding = str(result.capabilities.position_encoding or "utf-16")
    yield
    await lsp_client.shutdown_session()


async def test_the_negotiated_encoding(client: LanguageClient):
    offered = client.capabilities.general.position_encodings
    assert client.encoding == (offered[0] if offered else "utf-16")


async def test_an_incremental_edit_and_a_diagnostic_after_an_emoji(client: LanguageClient,
                                                                   tmp_path: Path):
    enc = client.encoding
    uri = await open_doc(client, tmp_path / "m.ss", TEXT)
    assert not client.diagnostics[uri]
    # `over=D` → `over=Q`, the edit's range in the client's units.
    start = _pos(TEXT, "D), h", enc)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangePartial(
            range=lsp.Range(start, lsp.Position(start.line, start.character + 1)), text="Q")]))
    (d,) = await published(client, uri, 2)
    edited = TEXT.replace("over=D), h", "over=Q), h")
    assert d.code == "E0403"
    assert d.range.start == _pos(edited, "Q), h", enc)
    assert d.range.end == _pos(edited, "), h", enc)


async def test_hover_definition_and_completion_after_non_ascii(client: LanguageClient,
                                                               tmp_path: Path):
    enc = client.encoding
    uri = await open_doc(client, tmp_path / "m.ss", TEXT)
    doc = lsp.TextDocumentIdentifier(uri)
    # Hover on the `h` after the string: its range is the name's.
    at_h = _pos(TEXT, "h)\n", enc)
    hv = await client.text_document_hover_async(lsp.HoverParams(doc, at_h))
    assert "h: [n D] f32" in hv.contents.value
    assert hv.range == lsp.Range(at_h, lsp.Position(at_h.line, at_h.character + 1))
    hv = await client.text_document_hover_async(lsp.HoverParams(doc, _pos(TEXT, "x, over", enc)))
    assert "x: [n D] f32" in hv.contents.value
    (loc,) = await client.text_document_definition_async(lsp.DefinitionParams(doc, at_h))
    assert loc.range.start == _pos(TEXT, "h = x", enc)
    # Completion after `over=` on that line: the axes, read up to the cursor.
    line = TEXT.split("\n")[4]
    typed = TEXT.replace(line, '    print("é→😀", mean(x, over=')
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangeWholeDocument(text=typed)]))
    result = await client.text_document_completion_async(lsp.CompletionParams(
        doc, _pos(typed, "over=\n", enc, len("over="))))
    labels = {i.label for i in result.items}
    assert {"n", "D"} <= labels and "f" not in labels


async def test_semantic_tokens_and_inlay_hints_count_the_clients_units(client: LanguageClient,
                                                                       tmp_path: Path):
    enc = client.encoding
    uri = await open_doc(client, tmp_path / "m.ss", TEXT)
    doc = lsp.TextDocumentIdentifier(uri)
    tokens = await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(doc))
    data, decoded, line, col = tokens.data, {}, 0, 0
    for i in range(0, len(data), 5):
        line += data[i]
        col = data[i + 1] if data[i] else col + data[i + 1]
        decoded[(line, col)] = (data[i + 2], TOKEN_TYPES[data[i + 3]])
    p = _pos(TEXT, "h)\n", enc)
    assert decoded[(p.line, p.character)] == (1, "variable")
    p = _pos(TEXT, "D), h", enc)
    assert decoded[(p.line, p.character)] == (1, "type")
    p = _pos(TEXT, "mean(x", enc)
    assert decoded[(p.line, p.character)] == (4, "function")  # a built-in form
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        doc, lsp.Range(lsp.Position(0, 0), lsp.Position(9, 0))))
    assert [(h.position, h.label) for h in hints] == [(_pos(TEXT, " = x", enc), ": [n D] f32")]
