"""Helpers of the language-server tests: open a document, find a position in a text."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient


async def open_doc(client: LanguageClient, path: Path, text: str) -> str:
    """Writes ``text`` to ``path``, opens it in the server and waits for its first
    diagnostics; returns its URI."""
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="shapescript", version=1, text=text)))
    await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return uri


def pos_of(text: str, needle: str, offset: int = 0) -> lsp.Position:
    """The position of ``needle`` (its first occurrence) plus ``offset`` characters, in
    characters of the line (UTF-16 units only where the line is ASCII)."""
    k = text.index(needle) + offset
    return lsp.Position(text.count("\n", 0, k), k - (text.rfind("\n", 0, k) + 1))
