"""Helpers of the language-server tests: open a document, wait for the diagnostics a
test expects, find a position in a text.

A test never counts publications: how many the server sends depends on timing (changes
that arrive together are checked once; an importer may be re-checked with its module).
It waits for the state it expects, each wait bounded, so a server that never publishes
it fails the test instead of hanging the suite."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

# The longest a test waits for the next publication (a loaded CI machine is slow, but
# never this slow).
PUBLISH_TIMEOUT = 60.0

async def next_publication(client: LanguageClient) -> lsp.PublishDiagnosticsParams:
    """The server's next publication of diagnostics, whatever its file; fails the test
    after ``PUBLISH_TIMEOUT`` s without one."""
    try:
        return await asyncio.wait_for(
            client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), PUBLISH_TIMEOUT)
    except asyncio.TimeoutError:
        pytest.fail(f"no diagnostics published in {PUBLISH_TIMEOUT:.0f} s; "
                    f"the last ones: {dict(client.diagnostics)}")


async def published(client: LanguageClient, uri: str, version: int) -> list[lsp.Diagnostic]:
    """The diagnostics the server publishes for ``uri`` at ``version`` (or a later one):
    the check of the text the test just sent (the server publishes each check with the
    version it checked; a publication the test hasn't waited for yet is skipped)."""
    for _ in range(100):
        params = await next_publication(client)
        if params.uri == uri and params.version is not None and params.version >= version:
            return list(params.diagnostics)
    pytest.fail(f"no diagnostics published for version {version} of {uri}")


async def until(client: LanguageClient, uri: str,
                ok: Callable[[list[lsp.Diagnostic] | None], bool] | list[str],
                most: int = 10) -> list[lsp.Diagnostic] | None:
    """Waits until the diagnostics last published for ``uri`` (None before the first)
    satisfy ``ok``, a predicate or the list of codes expected, for the states that
    follow from another file's change (an importer re-checked); at most ``most``
    publications. Returns them."""
    if isinstance(ok, list):
        codes = ok
        ok = lambda ds: [d.code for d in ds or []] == codes  # noqa: E731
    for _ in range(most):
        if ok(client.diagnostics.get(uri)):
            return client.diagnostics.get(uri)
        await next_publication(client)
    got = client.diagnostics.get(uri)
    if not ok(got):
        pytest.fail(f"the diagnostics of {uri} never became what the test expects: {got}")
    return got


async def open_doc(client: LanguageClient, path: Path, text: str) -> str:
    """Writes ``text`` to ``path``, opens it in the server and waits for its first
    diagnostics; returns its URI."""
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="shapescript", version=1, text=text)))
    await published(client, uri, 1)
    return uri


def pos_of(text: str, needle: str, offset: int = 0) -> lsp.Position:
    """The position of ``needle`` (its first occurrence) plus ``offset`` characters, in
    characters of the line (UTF-16 units only where the line is ASCII)."""
    k = text.index(needle) + offset
    return lsp.Position(text.count("\n", 0, k), k - (text.rfind("\n", 0, k) + 1))
