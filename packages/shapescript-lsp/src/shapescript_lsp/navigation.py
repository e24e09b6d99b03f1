"""Go to definition and find references."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

from shapescript import api
from shapescript.api import syntax as S
from shapescript_lsp.documents import Document
from shapescript_lsp.targets import target_at


def definition(doc: Document, pos: lsp.Position) -> list[lsp.Location]:
    """Where the name at ``pos`` is declared (in this file, an imported one or the
    prelude's)."""
    target = target_at(doc, pos)
    if target is None or target.decl_span is None:
        return []
    return [doc.location(target.decl_span)]


def references(doc: Document, pos: lsp.Position, include_declaration: bool) -> list[lsp.Location]:
    """Every use in this file of the name at ``pos`` (and its declaration, if asked)."""
    cm = doc.module
    target = target_at(doc, pos)
    if cm is None or target is None:
        return []
    out: list[Any] = []
    decl = target.decl_span
    same_file = decl is not None and (decl.file == doc.path)
    if include_declaration and decl is not None:
        out.append(decl)
    scope: Any = cm.env.module.decls
    if target.kind in ("local", "axis") and target.owner is not None:
        scope = (target.owner,)
    for n in api.walk(tuple(scope)):
        sp = None
        if isinstance(n, S.Name) and n.id == target.name:
            if target.kind in ("fn", "dim", "model", "local", "pymod", "axis", "alias"):
                res = cm.res.get(id(n))
                kind = getattr(res, "kind", None)
                if target.kind == "local" and kind not in (None, "local"):
                    continue
                if target.kind == "fn" and kind not in (None, "fn"):
                    continue
                sp = n.span
        elif isinstance(n, (S.SizeName, S.PatName)) and target.kind in ("dim", "axis", "alias"):
            full = n.name if not getattr(n, "module", None) else f"{n.module}.{n.name}"
            if full == target.name:
                sp = n.span
        elif isinstance(n, S.SpecialTypeExpr) and target.kind == "axis" and n.name == target.name:
            sp = n.span
        elif isinstance(n, (S.NamedTypeExpr,)) and n.name == target.name:
            sp = n.span
        elif isinstance(n, S.TensorTypeExpr) and n.alias == target.name:
            sp = type(n.span)(n.span.file, n.span.line, n.span.col, n.span.line,
                              n.span.col + len(target.name))
        elif isinstance(n, S.Attr) and target.kind == "field" and n.attr == target.name:
            sp = type(n.span)(n.span.file, n.span.end_line, n.span.end_col - len(n.attr),
                              n.span.end_line, n.span.end_col)
        elif isinstance(n, S.Param) and target.kind == "local" and n.name == target.name:
            continue  # the declaration itself
        if sp is not None and not (same_file and decl is not None and
                                   (sp.line, sp.col) == (decl.line, decl.col)):
            out.append(sp)
    return [doc.location(sp) for sp in out]

