"""The language server: pygls wiring of the editor's questions (``diagnostics``,
``hover``, ``navigation``, ``completion``, ``signatures``, ``outline``, ``tokens``) to
the protocol's requests.

Documents are kept in sync incrementally (pygls applies each change to its copy of the
text, in the position encoding agreed with the client); a change is checked on a worker
thread (``checks.CheckQueue``) through the document's ``IncrementalChecker`` and its
diagnostics published, while the event loop goes on answering requests from each
document's last check. A file over ``Settings.check_on_save_above`` is checked when it
is opened and saved only. A file's imports are read from the open documents' buffers
first (their unsaved edits), so an edit to an open module re-checks the open files that
import it; a module open in a buffer never saved is found where its file would be,
until the buffer is closed. A request that fails inside the server answers nothing and
logs the error: the server itself never stops for a file.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from shapescript_lsp import __version__
from shapescript_lsp.completion import completion as _completion
from shapescript_lsp.diagnostics import diagnostics as _diagnostics
from shapescript_lsp.diagnostics import quick_fixes
from shapescript_lsp.checks import CheckQueue, Want
from shapescript_lsp.documents import UTF16, Checked, Document, uri_to_path
from shapescript_lsp.frames import FrameReader
from shapescript_lsp.hover import hover as _hover
from shapescript_lsp.navigation import definition as _definition
from shapescript_lsp.navigation import references as _references
from shapescript_lsp.outline import document_symbols, inlay_hints
from shapescript_lsp.settings import Settings
from shapescript_lsp.signatures import signature_help as _signature_help
from shapescript_lsp.tokens import LEGEND
from shapescript_lsp.tokens import semantic_tokens as _semantic_tokens

log = logging.getLogger("shapescript_lsp")

# How long a request on an ordinary file waits for the check of the text the editor just
# sent before it answers from the last check (a check that takes longer is a file too
# large to be checked on every change; this bound is for the unforeseen).
REQUEST_WAIT = 5.0


class ShapeScriptServer(LanguageServer):
    """A pygls server that keeps one ``Document`` per open ``.ss`` file and checks them
    on worker threads (``CheckQueue``), answering requests from each one's last check."""

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__("shapescript", __version__,
                         text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.settings = settings or Settings()
        self.documents: dict[str, Document] = {}
        self.checks = CheckQueue(self._check_done)

    @property
    def encoding(self) -> str:
        """The position encoding agreed with the client (UTF-16 unless it offered
        UTF-8 or UTF-32)."""
        try:
            return str(self.workspace.position_encoding or UTF16)
        except RuntimeError:  # no session yet
            return UTF16

    def open_text(self, path: str) -> str | None:
        """The buffer of the open file at the absolute path ``path`` (None: not open).
        Called from the check threads: it reads the workspace's texts only."""
        for uri, doc in list(self.documents.items()):
            if os.path.abspath(doc.path) == path:
                return self.workspace.get_text_document(uri).source
        return None

    def new_document(self, uri: str) -> Document:
        doc = self.documents[uri] = Document(uri, encoding=self.encoding,
                                             overlay=self.open_text)
        return doc

    def is_large(self, uri: str) -> bool:
        """Whether the editor's text of ``uri`` is over the size checked only on save."""
        try:
            size = len(self.workspace.get_text_document(uri).source)
        except (OSError, ValueError):  # not open, and no such file
            return False
        return size > self.settings.check_on_save_above

    async def ready(self, uri: str) -> Document:
        """The open document ``uri`` to answer a request from: for an ordinary file,
        once the check of the editor's latest text (and of the open files it imports)
        is done, within ``REQUEST_WAIT``; a large file answers from its last check at
        once, while its check runs."""
        if not self.is_large(uri):
            await self.checks.settled(REQUEST_WAIT)
        return self.documents.get(uri) or self.new_document(uri)

    def check(self, uri: str, *, fresh: bool = False,
              seen: frozenset[str] = frozenset()) -> None:
        """Checks the editor's latest text of ``uri`` in the background; publishes its
        diagnostics when done, unless a newer text is waiting by then."""
        text_doc = self.workspace.get_text_document(uri)
        doc = self.documents.get(uri) or self.new_document(uri)
        doc.encoding = self.encoding
        text = text_doc.source
        self.checks.want(uri, doc, Want(text_doc.version, text, fresh=fresh,
                                        large=len(text) > self.settings.check_on_save_above,
                                        seen=seen))

    def _check_done(self, uri: str, doc: Document, want: Want, checked: Checked | None,
                    stale: bool) -> None:
        """On the event loop: a check of ``uri`` ended (``checked`` None: cancelled or
        failed)."""
        if checked is None or self.documents.get(uri) is not doc:
            return  # closed meanwhile
        doc.apply(checked, want.version)
        if not stale:
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=uri, version=want.version, diagnostics=_diagnostics(doc)))
        self.check_importers({doc.path}, want.seen | {os.path.abspath(doc.path)})

    def check_importers(self, paths: set[str], seen: frozenset[str]) -> None:
        """Checks again every open file that imports one of ``paths`` (their text
        changed, in a buffer or on disk); each such check then does the same for the
        open files importing that one. ``seen``: the files this chain checked already,
        so an import cycle ends."""
        for uri in _importers_of(self.documents, paths):
            here = os.path.abspath(self.documents[uri].path)
            if here not in seen:
                self.check(uri, seen=seen | {here})


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
               if os.path.abspath(p) != here) or any(
                doc.depends_on(p) for p in wanted - {here}):
            out.append(uri)
    return out


def _guard(default: Any = None) -> Callable:
    """Answers ``default`` (and logs) when a handler fails, instead of an error reply."""
    def fallback(fn: Callable) -> Any:
        log.error("%s failed:\n%s", fn.__name__, traceback.format_exc())
        return default() if callable(default) else default

    def wrap(fn: Callable) -> Callable:
        if asyncio.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def ainner(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await fn(*args, **kwargs)
                except Exception:  # noqa: BLE001 - a failed answer must not stop the server
                    return fallback(fn)
            return ainner

        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except Exception:  # noqa: BLE001 - a failed answer must not stop the server
                return fallback(fn)
        return inner
    return wrap


def build(settings: Settings | None = None) -> ShapeScriptServer:
    """A new server with every feature registered."""
    server = ShapeScriptServer(settings)
    _sync_features(server)
    _question_features(server)
    return server


def _sync_features(server: ShapeScriptServer) -> None:
    """The notifications that keep the documents in sync with the editor."""

    @server.feature(lsp.INITIALIZE)
    @_guard()
    def initialize(ls: ShapeScriptServer, params: lsp.InitializeParams) -> None:
        ls.settings = ls.settings.updated(params.initialization_options)

    @server.feature(lsp.SHUTDOWN)
    @_guard()
    def shutdown(ls: ShapeScriptServer, *args: Any) -> None:
        ls.checks.close()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    @_guard()
    def did_open(ls: ShapeScriptServer, params: lsp.DidOpenTextDocumentParams) -> None:
        # Its check then checks the open files importing it, which read its buffer from
        # now on (a file never saved is a module only from now on).
        ls.check(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    @_guard()
    def did_change(ls: ShapeScriptServer, params: lsp.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        if not ls.is_large(uri):
            ls.check(uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    @_guard()
    def did_save(ls: ShapeScriptServer, params: lsp.DidSaveTextDocumentParams) -> None:
        # A save may follow edits to the files this one imports: check afresh; and the
        # open files that import this one see its new contents.
        ls.check(params.text_document.uri, fresh=True)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @_guard()
    def did_change_watched_files(ls: ShapeScriptServer,
                                 params: lsp.DidChangeWatchedFilesParams) -> None:
        paths = {uri_to_path(c.uri) for c in params.changes}
        ls.check_importers(paths, frozenset(os.path.abspath(p) for p in paths))

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    @_guard()
    def did_close(ls: ShapeScriptServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.checks.forget(uri)
        doc = ls.documents.pop(uri, None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, diagnostics=[]))
        if doc is not None:  # its importers read the file on disk again
            ls.check_importers({doc.path}, frozenset({os.path.abspath(doc.path)}))


def _question_features(server: ShapeScriptServer) -> None:
    """The editor's questions about a document."""

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @_guard()
    async def hover(ls: ShapeScriptServer, params: lsp.HoverParams) -> lsp.Hover | None:
        return _hover(await ls.ready(params.text_document.uri), params.position)

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @_guard(list)
    async def definition(ls: ShapeScriptServer,
                         params: lsp.DefinitionParams) -> list[lsp.Location]:
        return _definition(await ls.ready(params.text_document.uri), params.position)

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    @_guard(list)
    async def references(ls: ShapeScriptServer,
                         params: lsp.ReferenceParams) -> list[lsp.Location]:
        doc = await ls.ready(params.text_document.uri)
        return _references(doc, params.position, params.context.include_declaration,
                           others=list(ls.documents.values()))

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION,
                    lsp.CompletionOptions(trigger_characters=[".", "=", "[", " ", "("]))
    @_guard(lambda: lsp.CompletionList(is_incomplete=False, items=[]))
    async def completion(ls: ShapeScriptServer,
                         params: lsp.CompletionParams) -> lsp.CompletionList:
        return _completion(await ls.ready(params.text_document.uri), params.position)

    @server.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP,
                    lsp.SignatureHelpOptions(trigger_characters=["(", ",", "["]))
    @_guard()
    async def signature_help(ls: ShapeScriptServer,
                             params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
        return _signature_help(await ls.ready(params.text_document.uri), params.position)

    @server.feature(lsp.TEXT_DOCUMENT_INLAY_HINT)
    @_guard(list)
    async def inlay_hint(ls: ShapeScriptServer,
                         params: lsp.InlayHintParams) -> list[lsp.InlayHint]:
        return inlay_hints(await ls.ready(params.text_document.uri), params.range)

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @_guard(list)
    async def document_symbol(ls: ShapeScriptServer,
                              params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        return document_symbols(await ls.ready(params.text_document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    @_guard(lambda: lsp.SemanticTokens(data=[]))
    async def semantic_tokens(ls: ShapeScriptServer,
                              params: lsp.SemanticTokensParams) -> lsp.SemanticTokens:
        return _semantic_tokens(await ls.ready(params.text_document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
    @_guard(list)
    async def code_action(ls: ShapeScriptServer,
                          params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        return quick_fixes(await ls.ready(params.text_document.uri), params)


def main(settings: Settings | None = None) -> None:
    """Serve over stdin/stdout until the editor says exit. The editor's stream is read
    frame by frame (``FrameReader``): a malformed message is skipped, not the next."""
    logging.basicConfig(level=logging.WARNING, format="shapescript lsp: %(message)s")
    build(settings).start_io(stdin=FrameReader(sys.stdin.buffer))
