"""The file at a glance: inlay hints (the inferred shape after each assigned name) and
document symbols (dims, consts, shapes, functions with their parameters, models with
their fields)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

from shapescript import api
from shapescript.api import syntax as S
from shapescript_lsp.documents import Document
from shapescript_lsp.hover import const_value_text, signature_text
from shapescript_lsp.targets import param_name_span

K = lsp.SymbolKind

def inlay_hints(doc: Document, rng: lsp.Range) -> list[lsp.InlayHint]:
    """The inferred type after each assigned name (unless the assignment writes one)."""
    cm = doc.module
    if cm is None:
        return []
    lo, hi = rng.start.line + 1, rng.end.line + 1  # lines: no unit conversion
    out = []
    for d in cm.env.module.decls:
        if not isinstance(d, S.FnDecl) or d.span.end_line < lo or d.span.line > hi:
            continue
        body = d.body if isinstance(d.body, tuple) else ()
        for n in api.walk(body):
            if not isinstance(n, S.Assign) or n.annotation is not None:
                continue
            if not lo <= n.span.line <= hi:
                continue
            for t in n.targets:
                if not isinstance(t, S.Name):
                    continue
                tt = cm.types.get(t)
                if tt is None and len(n.targets) == 1:
                    tt = cm.types.get(n.value)
                if tt is None or str(tt) in ("?", ""):
                    continue
                out.append(lsp.InlayHint(
                    position=doc.lines.position(t.span.end_line, t.span.end_col),
                    label=f": {tt}", kind=lsp.InlayHintKind.Type, padding_left=False))
    return out


def document_symbols(doc: Document) -> list[lsp.DocumentSymbol]:
    """The file's declarations, each with its parts."""
    cm = doc.module
    if cm is None:
        return []
    out = []
    env = cm.env
    for d in env.module.decls:
        if isinstance(d, (S.FnDecl, S.ExternDecl)):
            out.append(_fn_symbol(doc, env, d))
        elif isinstance(d, S.DimDecl):
            detail = (f"= {env.dims[d.name]}" if d.name in env.dims else
                      f"= {doc.slice(d.shape.span)}" if d.shape is not None else None)
            out.append(lsp.DocumentSymbol(
                name=d.name, kind=K.Constant if d.shape is None else K.Interface,
                range=doc.span_range(d.span), selection_range=doc.span_range(d.name_span),
                detail=detail))
        elif isinstance(d, S.ConstDecl):
            detail = (f"= {const_value_text(env.consts[d.name])}" if d.name in env.consts
                      else f"= {doc.slice(d.value.span)}")
            out.append(lsp.DocumentSymbol(
                name=d.name, kind=K.Constant, range=doc.span_range(d.span),
                selection_range=doc.span_range(d.name_span), detail=detail))
        elif isinstance(d, S.ModelDecl):
            info = env.models.get(d.name)
            children = []
            for f in d.fields:
                fi = info.fields.get(f.name) if info else None
                children.append(lsp.DocumentSymbol(
                    name=f.name, kind=K.Field, range=doc.span_range(f.span),
                    selection_range=doc.span_range(f.span), detail=str(fi.type) if fi else None))
            out.append(lsp.DocumentSymbol(
                name=d.name, kind=K.Class, range=doc.span_range(d.span),
                selection_range=doc.span_range(d.name_span), children=children))
    return out


def _fn_symbol(doc: Document, env: Any, d: Any) -> lsp.DocumentSymbol:
    sig = env.fns.get(d.name)
    sigs = sig.params if sig else [None] * len(d.params)
    children = [lsp.DocumentSymbol(
        name=p.name, kind=K.Variable, range=doc.span_range(p.span),
        selection_range=doc.span_range(param_name_span(p)), detail=ps.written if ps else None)
        for p, ps in zip(d.params, sigs)]
    return lsp.DocumentSymbol(
        name=d.name, kind=K.Function, range=doc.span_range(d.span),
        selection_range=doc.span_range(d.name_span),
        detail=signature_text(doc, sig) if sig else None, children=children)
