"""Diagnostics in the editor's terms, and the quick fixes their help names."""

from __future__ import annotations

import os
import re
from pathlib import Path

from lsprotocol import types as lsp

from shapescript_lsp.documents import Document, path_to_uri


def explain_uri(code: str) -> str | None:
    """The ``file:`` URI of a code's explain page (what ``shapescript explain`` prints)."""
    import shapescript

    page = Path(shapescript.__file__).parent / "explanations" / f"{code}.md"
    return page.as_uri() if page.is_file() else None


def diagnostics(doc: Document) -> list[lsp.Diagnostic]:
    """The file's diagnostics, in the editor's terms: the primary label's message joins
    the message, secondary labels are related locations, help and notes follow."""
    program = doc.program
    if program is None:
        return []
    here = os.path.abspath(doc.path)
    out = []
    for d in program.diagnostics:
        if d.file != doc.path and os.path.abspath(d.file) != here:
            continue
        message = d.message
        primary = d.labels[0].message if d.labels else ""
        if primary:
            message += f"\n{primary}"
        if d.help:
            message += f"\nhelp: {d.help}"
        for note in d.notes:
            message += f"\nnote: {note}"
        related = [
            lsp.DiagnosticRelatedInformation(
                lsp.Location(path_to_uri(lb.file), doc.range_in(
                    lb.file, lb.line, lb.column, lb.end_line, lb.end_column)),
                lb.message or "related")
            for lb in d.labels[1:]]
        href = explain_uri(d.code)
        end_col = max(d.end_column, d.column + 1) if d.end_line == d.line else d.end_column
        out.append(lsp.Diagnostic(
            range=doc.range_in(d.file, d.line, d.column, d.end_line, end_col),
            message=message,
            severity=lsp.DiagnosticSeverity.Error if d.is_error else lsp.DiagnosticSeverity.Warning,
            code=d.code,
            code_description=lsp.CodeDescription(href) if href else None,
            source="shapescript",
            related_information=related or None,
            data={"help": d.help} if d.help else None,
        ))
    return out


_AS_HELP = re.compile(r"assert (?:its|the) \w+ with `as ([^`]+)`")
_WRITE_HELP = re.compile(r"^write `([^`…]+)`$")
_ADD_HELP = re.compile(r"^add `([^`]+)` before")


def quick_fixes(doc: Document, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """A quick fix for each diagnostic in range whose help names an edit: ``as T`` to
    assert a type, ``write X`` to replace the marked text, ``add X before`` to insert.
    The edits' ranges are the diagnostics', already in the editor's units."""
    actions = []
    for diag in params.context.diagnostics:
        help_text = (diag.data or {}).get("help") if isinstance(diag.data, dict) else None
        if not help_text:
            continue
        edit: lsp.TextEdit | None = None
        title = ""
        r = diag.range
        if m := _AS_HELP.search(help_text):
            text = f" as {m.group(1)}"
            edit = lsp.TextEdit(lsp.Range(r.end, r.end), text)
            title = f"Assert with `as {m.group(1)}`"
        elif m := _WRITE_HELP.match(help_text):
            edit = lsp.TextEdit(r, m.group(1))
            title = f"Write `{m.group(1)}`"
        elif m := _ADD_HELP.match(help_text):
            edit = lsp.TextEdit(lsp.Range(r.start, r.start), m.group(1))
            title = f"Add `{m.group(1)}`"
        if edit is None:
            continue
        actions.append(lsp.CodeAction(
            title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[diag],
            is_preferred=True,
            edit=lsp.WorkspaceEdit(changes={doc.uri: [edit]})))
    return actions
