"""Go to definition and find references."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from lsprotocol import types as lsp

from shapescript import api
from shapescript.api import syntax as S
from shapescript_lsp.documents import Document
from shapescript_lsp.targets import const_origin, target_at


def definition(doc: Document, pos: lsp.Position) -> list[lsp.Location]:
    """Where the name at ``pos`` is declared (in this file, an imported one or the
    prelude's)."""
    target = target_at(doc, pos)
    if target is None or target.decl_span is None:
        return []
    return [doc.location(target.decl_span)]


def references(doc: Document, pos: lsp.Position, include_declaration: bool,
               others: Iterable[Document] = ()) -> list[lsp.Location]:
    """Every use in this file of the name at ``pos`` (and its declaration, if asked); a
    const's uses in the ``others`` open files too (those that import it)."""
    cm = doc.module
    target = target_at(doc, pos)
    if cm is None or target is None:
        return []
    if target.kind == "const":
        return _const_references(doc, target, include_declaration, others)
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
                res = cm.res.get(n)
                kind = getattr(res, "kind", None)
                if target.kind == "local" and kind not in (None, "local"):
                    continue
                if target.kind == "fn" and kind not in (None, "fn"):
                    continue
                sp = n.span
        elif isinstance(n, (S.SizeName, S.PatName)) and target.kind in ("dim", "axis", "alias"):
            module = getattr(n, "module", None)
            full = n.name if not module else f"{module}.{n.name}"
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



def _const_references(doc: Document, target: Any, include_declaration: bool,
                      others: Iterable[Document]) -> list[lsp.Location]:
    """A const's uses in ``doc`` and in the other open files, each place once: by
    name, as ``module.name``, and in ``from … import``; its declaration if asked."""
    out: list[lsp.Location] = []
    seen: set[tuple[str, int, int]] = set()

    def put(loc: lsp.Location) -> None:
        k = (loc.uri, loc.range.start.line, loc.range.start.character)
        if k not in seen:
            seen.add(k)
            out.append(loc)

    if target.decl_span is not None:
        decl = doc.location(target.decl_span)
        if include_declaration:
            put(decl)
        else:  # the declaration is not a use of itself
            seen.add((decl.uri, decl.range.start.line, decl.range.start.character))
    for d in (doc, *[o for o in others if o is not doc]):
        if d.module is None:
            continue
        for sp in const_uses(d.module, target.key):
            put(d.location(sp))
    return out


def const_uses(cm: Any, key: tuple[str, str]) -> list[Any]:
    """The spans in the checked file ``cm`` that name the const ``key`` (its declaring
    file and name): plain names the checker resolved to it (not a local or parameter
    of the same name), ``module.name``, and the names of ``from … import``."""
    env = cm.env

    def is_it(origin: Any) -> bool:
        return origin is not None and \
            (os.path.abspath(origin[0].path), origin[1]) == key

    out = []
    for n in api.walk(tuple(env.module.decls)):
        if isinstance(n, S.Name):
            kind = getattr(cm.res.get(n), "kind", None)
            if kind in (None, "const", "poisoned") and is_it(const_origin(env, n.id)):
                out.append(n.span)
        elif isinstance(n, S.Attr) and isinstance(n.value, S.Name) and \
                n.value.id in env.ssmods and is_it(const_origin(env, n.attr, n.value.id)):
            sp = n.span  # the name after the dot, as a field's
            out.append(type(sp)(sp.file, sp.end_line, sp.end_col - len(n.attr), sp.end_line,
                                sp.end_col))
        elif isinstance(n, S.FromImport):
            for name in n.names:
                if is_it(const_origin(env, name.alias or name.name)):
                    sp = name.span
                    out.append(type(sp)(sp.file, sp.line, sp.col, sp.line,
                                        sp.col + len(name.name)))
    return out
