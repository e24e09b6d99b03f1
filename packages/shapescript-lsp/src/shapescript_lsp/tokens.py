"""Semantic tokens: names coloured by what they are, so dims (``type``, read-only),
generic axes (``typeParameter``) and values (``variable``/``parameter``) look apart,
with consts (``variable``, read-only: host values, not sizes), functions, models, fields
and modules."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

from shapescript import api
from shapescript.api import syntax as S
from shapescript_lsp.documents import Document
from shapescript_lsp.targets import const_origin

TOKEN_TYPES = ["function", "parameter", "variable", "type", "typeParameter", "class",
               "property", "namespace"]
TOKEN_MODIFIERS = ["declaration", "readonly", "defaultLibrary"]
LEGEND = lsp.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS)
DECL, RO, LIB = 1, 2, 4
_NAME_KINDS = {"dim": ("type", RO), "generic": ("typeParameter", 0), "model": ("class", 0),
               "const": ("variable", RO), "pymod": ("namespace", 0), "ssmod": ("namespace", 0)}


class _Tokens:
    """Tokens gathered in ShapeScript's positions (1-based, characters)."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.toks: list[tuple[int, int, int, int, int]] = []

    def put(self, line: int, col: int, length: int, ttype: str, mods: int = 0) -> None:
        if length > 0:
            self.toks.append((line, col, length, TOKEN_TYPES.index(ttype), mods))

    def size(self, n: Any) -> None:
        """An axis or dim name in a type or a pattern."""
        name = n.name if not getattr(n, "module", None) else f"{n.module}.{n.name}"
        if self.env.dim_origin(name) is not None:
            ttype, mods = "type", RO
        elif self.env.alias(name) is not None:
            ttype, mods = "type", 0
        else:
            ttype, mods = "typeParameter", 0
        sp = n.span
        self.put(sp.line, sp.col, sp.end_col - sp.col if sp.end_line == sp.line else len(name),
                 ttype, mods)

    def name(self, cm: Any, n: Any, params: set[str]) -> None:
        """A name in an expression, by what the checker resolved it to."""
        res = cm.res.get(n)
        kind = getattr(res, "kind", None)
        sp = n.span
        if kind == "fn":
            sig = getattr(res, "sig", None) or self.env.fn(n.id)
            lib = LIB if sig is not None and str(sig.file).startswith("<") else 0
            self.put(sp.line, sp.col, len(n.id), "function", lib)
        elif kind in _NAME_KINDS:
            self.put(sp.line, sp.col, len(n.id), *_NAME_KINDS[kind])
        elif kind is None and n.id not in params and self.env.dim_origin(n.id) is not None:
            self.put(sp.line, sp.col, len(n.id), "type", RO)  # an axis named, as `over=D`
        elif kind in (None, "poisoned") and n.id not in params and \
                const_origin(self.env, n.id) is not None:  # in a const's value; a failed one
            self.put(sp.line, sp.col, len(n.id), "variable", RO)
        elif kind is None and n.id not in params and n.id in self.env.ssmods:
            self.put(sp.line, sp.col, len(n.id), "namespace")  # `layers` of `layers.eps`
        elif kind is None and n.id not in params and api.builtin_doc(n.id) is not None:
            self.put(sp.line, sp.col, len(n.id), "function", LIB)  # a built-in form
        elif kind == "local" or kind is None and sp.end_line == sp.line:
            self.put(sp.line, sp.col, len(n.id), "parameter" if n.id in params else "variable")

    def member(self, n: Any) -> tuple[str, int]:
        """The ``attr`` of ``value.attr``: a module's const or dim, else a field."""
        base = n.value
        if isinstance(base, S.Name) and base.id in self.env.ssmods:
            if const_origin(self.env, n.attr, base.id) is not None:
                return "variable", RO
            if self.env.dim_origin(f"{base.id}.{n.attr}") is not None:
                return "type", RO
        return "property", 0

    def declaration(self, d: Any) -> set[str]:
        """A declaration's own name (and its parameters' or fields'); the parameters'
        names."""
        params: set[str] = set()
        ns: Any = d.name_span if hasattr(d, "name_span") else None
        if isinstance(d, (S.FnDecl, S.ExternDecl)):
            self.put(ns.line, ns.col, len(d.name), "function", DECL)
            for p in d.params:
                params.add(p.name)
                self.put(p.span.line, p.span.col, len(p.name), "parameter", DECL)
        elif isinstance(d, S.DimDecl):
            self.put(ns.line, ns.col, len(d.name), "type", DECL | (RO if d.shape is None else 0))
        elif isinstance(d, S.ConstDecl):
            self.put(ns.line, ns.col, len(d.name), "variable", DECL | RO)
        elif isinstance(d, S.ModelDecl):
            self.put(ns.line, ns.col, len(d.name), "class", DECL)
            for f in d.fields:
                self.put(f.span.line, f.span.col + len("param "), len(f.name), "property", DECL)
        return params


def semantic_tokens(doc: Document) -> lsp.SemanticTokens:
    """Every name of the file, coloured by what it is."""
    cm = doc.module
    if cm is None:
        return lsp.SemanticTokens(data=[])
    tokens = _Tokens(cm.env)
    for d in cm.env.module.decls:
        params = tokens.declaration(d)
        for n in api.walk((d,)):
            if isinstance(n, S.Name):
                tokens.name(cm, n, params)
            elif isinstance(n, (S.SizeName, S.PatName)):
                tokens.size(n)
            elif isinstance(n, S.ImportName) and \
                    const_origin(cm.env, n.alias or n.name) is not None:
                tokens.put(n.span.line, n.span.col, len(n.name), "variable", RO)
            elif isinstance(n, S.Attr) and n.span.end_line == n.span.line:
                tokens.put(n.span.line, n.span.end_col - len(n.attr), len(n.attr),
                           *tokens.member(n))
    return lsp.SemanticTokens(data=_encode(doc, tokens.toks))


def _encode(doc: Document, toks: list[tuple[int, int, int, int, int]]) -> list[int]:
    """The protocol's relative encoding, positions and lengths in the editor's units;
    of overlapping tokens (a desugared pipe's shared node) the first is kept."""
    lines = doc.lines
    data: list[int] = []
    last_line = last_col = 0
    prev_end = (-1, -1)
    for line, col, length, ttype, mods in sorted(toks):
        i = line - 1
        start = lines.units(i, col - 1)
        end = lines.units(i, col - 1 + length)
        if (i, start) < prev_end:
            continue
        dl = i - last_line
        data += [dl, start - last_col if dl == 0 else start, end - start, ttype, mods]
        last_line, last_col = i, start
        prev_end = (i, end)
    return data
