"""Diagnostics in the editor's terms, and the quick fixes their help names."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from shapescript import api
from shapescript_lsp.documents import Document, path_to_uri


def explain_uri(code: str) -> str | None:
    """The ``file:`` URI of a code's explain page (what ``shapescript explain`` prints)."""
    import shapescript

    page = Path(shapescript.__file__).parent / "explanations" / f"{code}.md"
    return page.as_uri() if page.is_file() else None


def _imported_errors(doc: Document, diags: list[Any]) -> list[Any]:
    """The first error of each imported module that isn't open in the editor (an open
    one shows its own): ``shapescript check`` of this file reports them, so the editor
    shows them too, at the import (a module that isn't UTF-8 can't even be opened)."""
    here = os.path.abspath(doc.path)
    firsts: dict[str, Any] = {}
    for d in diags:
        where = os.path.abspath(d.file)
        if not d.is_error or where == here or d.file.startswith("<") or where in firsts:
            continue
        if doc.overlay is not None and doc.overlay(where) is not None:
            continue
        firsts[where] = d
    return list(firsts.values())


def _import_span(doc: Document, path: str) -> Any:
    """The import of this file that reads the module at ``path`` (its module's name is
    the path's end), else the file's first import: the way to it goes through there."""
    module = doc.known
    imports = [d for d in (module.env.module.decls if module is not None else ())
               if isinstance(d, (api.syntax.Import, api.syntax.FromImport))]
    want = os.path.splitext(os.path.abspath(path))[0].replace(os.sep, "/")
    for d in imports:
        if want.endswith("/" + d.module.replace(".", "/")):
            return d.span
    return imports[0].span if imports else None


def _imported_error(doc: Document, d: Any) -> lsp.Diagnostic:
    sp = _import_span(doc, d.file)
    r = (doc.lines.range(sp.line, sp.col, sp.end_line, sp.end_col) if sp is not None
         else lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)))
    name = os.path.basename(d.file)
    message = f"the imported module {name} has an error: {d.message}"
    if d.help:
        message += f"\nhelp: {d.help}"
    href = explain_uri(d.code)
    return lsp.Diagnostic(
        range=r, message=message, severity=lsp.DiagnosticSeverity.Error, code=d.code,
        code_description=lsp.CodeDescription(href) if href else None, source="shapescript",
        related_information=[lsp.DiagnosticRelatedInformation(
            lsp.Location(path_to_uri(d.file), doc.range_in(
                d.file, d.line, d.column, d.end_line, max(d.end_column, d.column + 1))),
            d.labels[0].message if d.labels and d.labels[0].message else d.message)])


def _data(doc: Document, d: Any) -> dict[str, Any] | None:
    data: dict[str, Any] = {}
    if d.help:
        data["help"] = d.help
    fix = _fix_data(doc, d)
    if fix is not None:
        data["fix"] = fix
    return data or None


def diagnostics(doc: Document) -> list[lsp.Diagnostic]:
    """The file's diagnostics, in the editor's terms: the primary label's message joins
    the message, secondary labels are related locations, help and notes follow."""
    program = doc.program
    if program is None:
        return []
    here = os.path.abspath(doc.path)
    # `# noqa` comments, as `shapescript check` reads them (E1901 for unused ones here).
    diags = api.apply_suppressions(program.diagnostics, program.sources, [doc.path])
    out = [_imported_error(doc, d) for d in _imported_errors(doc, diags)]
    for d in diags:
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
            data=_data(doc, d),
        ))
    return out


def _fix_data(doc: Document, d: Any) -> dict[str, Any] | None:
    """The core's quick fix of ``d`` (``api.quick_fix``, the edits ``shapescript check
    --fix`` makes), its edits' ranges in the editor's units, as a diagnostic's data."""
    fix = api.quick_fix(d, doc.lines_of(d.file).text)
    if fix is None:
        return None
    edits = []
    for e in fix.edits:
        r = doc.range_in(e.file, e.line, e.col, e.end_line, e.end_col)
        edits.append({"uri": path_to_uri(e.file), "newText": e.text, "range": {
            "start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character}}})
    return {"title": fix.title, "edits": edits}


def quick_fixes(doc: Document, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """A quick fix for each diagnostic in range whose help names an edit (the fix the
    server attached to it when it published it)."""
    actions = []
    for diag in params.context.diagnostics:
        fix = diag.data.get("fix") if isinstance(diag.data, dict) else None
        if not isinstance(fix, dict):
            continue
        changes: dict[str, list[lsp.TextEdit]] = {}
        for e in fix.get("edits", []):
            r = e["range"]
            changes.setdefault(e["uri"], []).append(lsp.TextEdit(lsp.Range(
                lsp.Position(r["start"]["line"], r["start"]["character"]),
                lsp.Position(r["end"]["line"], r["end"]["character"])), e["newText"]))
        actions.append(lsp.CodeAction(
            title=fix["title"], kind=lsp.CodeActionKind.QuickFix, diagnostics=[diag],
            is_preferred=True, edit=lsp.WorkspaceEdit(changes=changes)))
    return actions
