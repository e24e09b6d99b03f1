"""The language server: pygls wiring of the editor's questions (``diagnostics``,
``hover``, ``navigation``, ``completion``, ``signatures``, ``outline``, ``tokens``) to
the protocol's requests.

Documents are kept in sync incrementally (pygls applies each change to its copy of the
text, in the position encoding agreed with the client); every change re-checks the file
through the document's ``IncrementalChecker`` and publishes its diagnostics. A file's
imports are read from the open documents' buffers first (their unsaved edits), so an
edit to an open module re-checks the open files that import it; a module open in a
buffer never saved is found where its file would be, until the buffer is closed. A
request that fails inside the server answers nothing and logs the error: the server
itself never stops for a file.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import traceback
from collections.abc import Callable
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from shapescript_lsp import __version__
from shapescript_lsp.completion import completion as _completion
from shapescript_lsp.diagnostics import diagnostics as _diagnostics
from shapescript_lsp.diagnostics import quick_fixes
from shapescript_lsp.documents import UTF16, Document, uri_to_path
from shapescript_lsp.hover import hover as _hover
from shapescript_lsp.navigation import definition as _definition
from shapescript_lsp.navigation import references as _references
from shapescript_lsp.outline import document_symbols, inlay_hints
from shapescript_lsp.signatures import signature_help as _signature_help
from shapescript_lsp.tokens import LEGEND
from shapescript_lsp.tokens import semantic_tokens as _semantic_tokens

log = logging.getLogger("shapescript_lsp")


class ShapeScriptServer(LanguageServer):
    """A pygls server that keeps one ``Document`` per open ``.ss`` file."""

    def __init__(self) -> None:
        super().__init__("shapescript", __version__,
                         text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.documents: dict[str, Document] = {}
        # Documents changed since their last check: while keystrokes arrive faster than
        # a file checks, only the latest text is checked; a request checks it first.
        self.pending: set[str] = set()

    @property
    def encoding(self) -> str:
        """The position encoding agreed with the client (UTF-16 unless it offered
        UTF-8 or UTF-32)."""
        try:
            return str(self.workspace.position_encoding or UTF16)
        except RuntimeError:  # no session yet
            return UTF16

    def open_text(self, path: str) -> str | None:
        """The buffer of the open file at the absolute path ``path`` (None: not open)."""
        for uri, doc in self.documents.items():
            if os.path.abspath(doc.path) == path:
                return self.workspace.get_text_document(uri).source
        return None

    def new_document(self, uri: str) -> Document:
        doc = self.documents[uri] = Document(uri, encoding=self.encoding,
                                             overlay=self.open_text)
        return doc

    def document(self, uri: str) -> Document:
        """The open document ``uri``, checked up to its latest change (and the changes
        of the open files it may import)."""
        for other in sorted(self.pending, key=lambda u: u == uri):
            self.flush(other)
        return self.documents.get(uri) or self.new_document(uri)

    def schedule(self, uri: str) -> None:
        """Checks ``uri`` once the notifications already received are handled."""
        self.pending.add(uri)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush(uri)
            return
        loop.call_soon(self.flush, uri)

    def flush(self, uri: str) -> None:
        """Checks ``uri`` if a change is waiting, then the open files importing it."""
        if uri in self.pending:
            self.pending.discard(uri)
            try:
                self.refresh(uri)
                doc = self.documents.get(uri)
                if doc is not None:
                    self.refresh_importers({doc.path})
            except Exception:  # noqa: BLE001 - a failed check must not stop the server
                log.error("checking %s failed:\n%s", uri, traceback.format_exc())

    def refresh(self, uri: str) -> None:
        """Re-checks ``uri`` from the workspace's text and publishes its diagnostics."""
        self.pending.discard(uri)
        text_doc = self.workspace.get_text_document(uri)
        doc = self.documents.get(uri) or self.new_document(uri)
        doc.version = text_doc.version
        doc.update(text_doc.source)
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, version=text_doc.version, diagnostics=_diagnostics(doc)))

    def refresh_importers(self, paths: set[str], seen: set[str] | None = None) -> None:
        """Checks again every open file that imports one of ``paths`` (their text
        changed, in a buffer or on disk), and the open files importing those. Each
        file's checker sees that an imported text changed and checks it afresh."""
        seen = seen if seen is not None else {os.path.abspath(p) for p in paths}
        changed = set()
        for uri in _importers_of(self.documents, paths):
            doc = self.documents[uri]
            here = os.path.abspath(doc.path)
            if here in seen:
                continue
            seen.add(here)
            self.pending.discard(uri)
            self.refresh(uri)
            changed.add(doc.path)
        if changed:
            self.refresh_importers(changed, seen)


def _importers_of(documents: dict[str, Document], paths: set[str]) -> list[str]:
    """The open documents whose last check read one of ``paths``, or looked for a
    module there and found none (a buffer never saved may be that module)."""
    wanted = {os.path.abspath(p) for p in paths}
    out = []
    for uri, doc in documents.items():
        program = doc.program
        if program is None:
            continue
        here = os.path.abspath(doc.path)
        if any(os.path.abspath(p) in wanted for p in program.modules
               if os.path.abspath(p) != here) or (
                doc.checker is not None
                and any(doc.checker.depends_on(p) for p in wanted - {here})):
            out.append(uri)
    return out


def _guard(default: Any = None) -> Callable:
    """Answers ``default`` (and logs) when a handler fails, instead of an error reply."""
    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception:  # noqa: BLE001 - a failed answer must not stop the server
                log.error("%s failed:\n%s", fn.__name__, traceback.format_exc())
                return default() if callable(default) else default
        return inner
    return wrap


def build() -> ShapeScriptServer:
    """A new server with every feature registered."""
    server = ShapeScriptServer()
    _sync_features(server)
    _question_features(server)
    return server


def _sync_features(server: ShapeScriptServer) -> None:
    """The notifications that keep the documents in sync with the editor."""

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    @_guard()
    def did_open(ls: ShapeScriptServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.refresh(params.text_document.uri)
        # The open files importing it now read its buffer: a file never saved is a
        # module only from now on.
        doc = ls.documents.get(params.text_document.uri)
        if doc is not None:
            ls.refresh_importers({doc.path})

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    @_guard()
    def did_change(ls: ShapeScriptServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    @_guard()
    def did_save(ls: ShapeScriptServer, params: lsp.DidSaveTextDocumentParams) -> None:
        # A save may follow edits to the files this one imports: check afresh; and the
        # open files that import this one see its new contents.
        ls.pending.discard(params.text_document.uri)  # checked afresh just below
        doc = ls.document(params.text_document.uri)
        doc.checker = None
        ls.refresh(params.text_document.uri)
        ls.refresh_importers({doc.path})

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @_guard()
    def did_change_watched_files(ls: ShapeScriptServer,
                                 params: lsp.DidChangeWatchedFilesParams) -> None:
        ls.refresh_importers({uri_to_path(c.uri) for c in params.changes})

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    @_guard()
    def did_close(ls: ShapeScriptServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.pending.discard(params.text_document.uri)
        doc = ls.documents.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=params.text_document.uri, diagnostics=[]))
        if doc is not None:  # its importers read the file on disk again
            ls.refresh_importers({doc.path})


def _question_features(server: ShapeScriptServer) -> None:
    """The editor's questions about a document."""

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @_guard()
    def hover(ls: ShapeScriptServer, params: lsp.HoverParams) -> lsp.Hover | None:
        return _hover(ls.document(params.text_document.uri), params.position)

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @_guard(list)
    def definition(ls: ShapeScriptServer, params: lsp.DefinitionParams) -> list[lsp.Location]:
        return _definition(ls.document(params.text_document.uri), params.position)

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    @_guard(list)
    def references(ls: ShapeScriptServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
        doc = ls.document(params.text_document.uri)
        return _references(doc, params.position, params.context.include_declaration,
                           others=list(ls.documents.values()))

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION,
                    lsp.CompletionOptions(trigger_characters=[".", "=", "[", " ", "("]))
    @_guard(lambda: lsp.CompletionList(is_incomplete=False, items=[]))
    def completion(ls: ShapeScriptServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        return _completion(ls.document(params.text_document.uri), params.position)

    @server.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP,
                    lsp.SignatureHelpOptions(trigger_characters=["(", ",", "["]))
    @_guard()
    def signature_help(ls: ShapeScriptServer,
                       params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
        return _signature_help(ls.document(params.text_document.uri), params.position)

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT)
    @_guard(list)
    def inlay_hint(ls: ShapeScriptServer, params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        return inlay_hints(ls.document(params.text_document.uri), params.range)

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @_guard(list)
    def document_symbol(ls: ShapeScriptServer,
                        params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        return document_symbols(ls.document(params.text_document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    @_guard(lambda: lsp.SemanticTokens(data=[]))
    def semantic_tokens(ls: ShapeScriptServer,
                        params: lsp.SemanticTokensParams) -> lsp.SemanticTokens:
        return _semantic_tokens(ls.document(params.text_document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
    @_guard(list)
    def code_action(ls: ShapeScriptServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        return quick_fixes(ls.document(params.text_document.uri), params)


def main() -> None:
    """Serve over stdin/stdout until the editor says exit."""
    logging.basicConfig(level=logging.WARNING, format="shapescript lsp: %(message)s")
    build().start_io()
