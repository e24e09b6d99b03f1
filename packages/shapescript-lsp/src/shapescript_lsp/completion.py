"""Completion: the names in scope (consts with their values), a model's fields after
``m.``, a module's public names, the axes in scope after ``over=`` and in a pattern, dims
inside a type's brackets; the built-in forms with their typed signatures and docs. The
context is read from the text before the cursor, so a half-typed line still gets
answers."""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types as lsp

from shapescript import api
from shapescript.api import syntax as S
from shapescript_lsp.documents import Document
from shapescript_lsp.hover import (builtin_markdown, const_type_name, const_value_text,
                                   signature_text)
from shapescript_lsp.targets import body_of, const_origin

KEYWORDS = ("fn", "export", "extern", "dim", "const", "model", "param", "import", "python",
            "from", "as", "to", "return", "if", "elif", "else", "for", "in", "with", "and", "or",
            "not", "over", "true", "false", "none", "devices")
K = lsp.CompletionItemKind
# The built-in forms that take a pattern, and those that take a shape in brackets.
PATTERN_CALLS = tuple(b.name for b in api.builtin_docs() if "pattern" in b.signature)
_SHAPE_CALL = re.compile(r"\b(dim\s+\w+\s*=\s*|" + "|".join(
    b.name for b in api.builtin_docs() if b.signature.startswith(b.name + "[")) + r")\s*\[[^\]]*$")


def text_before(doc: Document, pos: lsp.Position, lines: int = 12) -> str:
    """The text from a few lines above the cursor up to it (calls span lines)."""
    first = max(0, pos.line - lines)
    starts = doc.lines.starts
    a = starts[first] if first < len(starts) else 0
    return doc.text[a:doc.lines.offset(pos)]


def unclosed(prefix: str) -> tuple[str | None, int, str]:
    """The innermost bracket still open in ``prefix``: its kind, its position, and the
    name right before it."""
    depth = 0
    for i in range(len(prefix) - 1, -1, -1):
        c = prefix[i]
        if c in ")]":
            depth += 1
        elif c in "([":
            if depth == 0:
                m = re.search(r"([^\W\d][\w.]*)\s*$", prefix[:i])
                return c, i, m.group(1) if m else ""
            depth -= 1
    return None, -1, ""


def _fn_at_line(cm: Any, line: int) -> Any:
    for d in cm.env.module.decls:
        if isinstance(d, (S.FnDecl, S.ExternDecl)) and d.span.line <= line <= d.span.end_line:
            return d
    return None


def _axes_in(cm: Any, fn: Any) -> list[str]:
    """The axis labels a function's types mention (its signature and its body)."""
    names: list[str] = []
    for n in api.walk((fn,)):
        if isinstance(n, (S.SizeName, S.PatName)) and n.name not in names:
            names.append(n.name)
        t = cm.types.get(n)
        for ax in getattr(t, "axes", ()) or ():
            if not getattr(ax, "variadic", False):
                label = str(ax.label)
                if re.fullmatch(r"[^\W\d][\w.]*", label) and label not in names:
                    names.append(label)
    return names


def _axes_in_text(before: str) -> list[str]:
    """The axis names in the brackets of the last signature above the cursor (for a
    function that doesn't parse yet)."""
    k = max(before.rfind("\nfn "), before.rfind("\nexport fn "), before.rfind("\nextern fn "))
    text = before[k + 1:] if k >= 0 else before
    names: list[str] = []
    for group in re.findall(r"\[([^\]]*)\]", text):
        for name in re.findall(r"[^\W\d]\w*", group):
            if name not in names:
                names.append(name)
    return names


class _Items:
    """The completion items gathered so far, each label once."""

    def __init__(self, doc: Document, cm: Any, pos: lsp.Position) -> None:
        self.doc, self.cm = doc, cm
        # The file's environment; the completions that read it run only where it checked.
        self.env: Any = cm.env if cm is not None else None
        self.items: list[lsp.CompletionItem] = []
        self.seen: set[str] = set()
        line_start = doc.lines.starts[pos.line] if pos.line < len(doc.lines.starts) else 0
        self.prefix = doc.text[line_start:doc.lines.offset(pos)]
        self.before = text_before(doc, pos)
        self.line = pos.line + 1
        self.fn = _fn_at_line(cm, self.line) if cm is not None else None

    def add(self, label: str, kind: lsp.CompletionItemKind, detail: str | None = None,
            documentation: str | None = None) -> None:
        if label in self.seen:
            return
        self.seen.add(label)
        self.items.append(lsp.CompletionItem(
            label=label, kind=kind, detail=detail,
            documentation=lsp.MarkupContent(lsp.MarkupKind.Markdown, documentation)
            if documentation else None))

    def done(self, incomplete: bool = False) -> lsp.CompletionList:
        return lsp.CompletionList(is_incomplete=incomplete, items=self.items)

    def dims(self) -> None:
        for name, value in self.env.all_dims().items():
            decl = self.env.dim_decls.get(name)
            self.add(name, K.Constant, f"dim {name} = {value}", decl.doc if decl else None)

    def consts(self, env: Any = None, public: bool = False) -> None:
        """The consts of ``env`` (this file's and those it imports by name; a module's
        public ones after ``module.``), with their values."""
        env = env or self.env
        names = list(env.const_decls)
        if env is self.env:
            names += [local for local, (sub, orig) in env.imported.items()
                      if orig in sub.const_decls]
        for name in names:
            if public and not env.public(name):
                continue
            origin = const_origin(env, name)
            if origin is None:
                continue
            cenv, cname = origin
            decl = cenv.const_decls[cname]
            if cname in cenv.consts:
                value = cenv.consts[cname]
                detail = f"const {name}: {const_type_name(value)} = {const_value_text(value)}"
            else:
                detail = f"const {name}"
            self.add(name, K.Constant, detail, decl.doc)

    def axes(self) -> None:
        fn = self.fn
        names = _axes_in(self.cm, fn) if fn is not None else _axes_in_text(self.before)
        for name in names:
            if self.env.dim_origin(name) is None:
                self.add(name, K.TypeParameter, "axis")

    def aliases(self) -> None:
        for name in self.env.aliases:
            self.add(name, K.Interface, "shape")


def completion(doc: Document, pos: lsp.Position) -> lsp.CompletionList:
    """What may be written at ``pos``."""
    cm = doc.known
    items = _Items(doc, cm, pos)
    if cm is None:
        for k in KEYWORDS:
            items.add(k, K.Keyword)
        return items.done()
    for special in (_members, _over_axes, _pattern_axes, _type_brackets):
        got = special(items)
        if got is not None:
            return got
    _in_scope(items)
    return items.done()


def _model_of(items: _Items, base: str) -> Any:
    """The model type of the name ``base`` in the function at the cursor, if any."""
    cm, env, fn = items.cm, items.env, items.fn
    if fn is None:
        return None
    for n in api.walk((fn,)):
        if isinstance(n, S.Name) and n.id == base:
            t = cm.types.get(n)
            if type(t).__name__ == "ModelType":
                return env.model(t.name)
    sig = env.fns.get(fn.name)
    for ps in (sig.params if sig else []):
        if ps.name == base and type(ps.type).__name__ == "ModelType":
            return env.model(ps.type.name)
    return None


def _members(items: _Items) -> lsp.CompletionList | None:
    """``model_value.`` → the model's fields; ``module.`` → its public names."""
    m = re.search(r"([^\W\d]\w*)\.(\w*)$", items.prefix)
    if m is None:
        return None
    base, env = m.group(1), items.env
    info = _model_of(items, base)
    if info is not None:
        for f in info.fields.values():
            items.add(f.name, K.Field, str(f.type), f.decl.doc)
        return items.done()
    sub = env.ssmods.get(base)
    if sub is not None:
        items.consts(sub, public=True)
        for name in list(sub.fns) + list(sub.dims) + list(sub.models) + list(sub.aliases):
            if sub.public(name):
                items.add(name, K.Function if name in sub.fns else K.Constant)
        return items.done()
    if base in env.pymods:
        return items.done(incomplete=True)
    return None


def _over_axes(items: _Items) -> lsp.CompletionList | None:
    """``over=`` → the axes in scope, dims first."""
    if not re.search(r"\bover\s*=\s*\(?[\w\s]*$", items.prefix):
        return None
    items.axes()
    items.dims()
    return items.done()


def _pattern_axes(items: _Items) -> lsp.CompletionList | None:
    """Inside a pattern: ``rearrange(x, b (h w) -> …``, ``einsum(a, b: …``."""
    kind, _, callee = unclosed(items.before)
    if kind != "(" or callee not in PATTERN_CALLS:
        return None
    before = items.before
    tail = before[before.rfind("(") + 1:] if "(" in before else before
    if "->" in tail or (callee == "einsum" and ":" in tail) or \
            re.search(r",\s*[\w\s()]*$", tail):
        items.axes()
        items.dims()
        if items.items:
            return items.done()
    return None


def _type_brackets(items: _Items) -> lsp.CompletionList | None:
    """Inside a type's brackets: dims, aliases and the function's axes."""
    kind, _, _ = unclosed(items.before)
    before = items.before
    if kind != "[" or not (re.search(r"(:|->)\s*[\w\s.*+/()-]*\[[^\]]*$", before)
                           or _SHAPE_CALL.search(before)):
        return None
    items.dims()
    items.axes()
    items.aliases()
    return items.done()


def _in_scope(items: _Items) -> None:
    """Every name in scope: locals, functions (the file's, imported, the prelude's),
    models, dims, shapes, modules, the built-in forms and the keywords."""
    doc, cm, env, fn = items.doc, items.cm, items.env, items.fn
    if fn is not None:
        sig = env.fns.get(fn.name)
        for p in fn.params:
            ps = next((q for q in (sig.params if sig else []) if q.name == p.name), None)
            items.add(p.name, K.Variable, ps.written if ps else None)
        for n in api.walk(body_of(fn)):
            if isinstance(n, S.Assign) and n.span.line <= items.line:
                for t in n.targets:
                    if isinstance(t, S.Name):
                        tt = cm.types.get(t)
                        items.add(t.id, K.Variable, str(tt) if tt else None)
            elif isinstance(n, S.For):
                for target in n.targets:
                    items.add(target, K.Variable)
    for name, sig in env.fns.items():
        items.add(name, K.Function, signature_text(doc, sig), sig.decl.doc)
    for local, (sub, orig) in env.imported.items():
        if orig in sub.fns:
            items.add(local, K.Function, None, sub.fns[orig].decl.doc)
    for name, info in env.models.items():
        items.add(name, K.Class, "model", info.decl.doc)
    items.dims()
    items.consts()
    items.aliases()
    for name in list(env.ssmods) + list(env.pymods):
        items.add(name, K.Module)
    prelude = env.prelude
    while prelude is not None:
        for name, sig in prelude.fns.items():
            items.add(name, K.Function, signature_text(doc, sig), sig.decl.doc)
        prelude = prelude.prelude
    for b in api.builtin_docs():
        items.add(b.name, K.Function, b.signature, builtin_markdown(b))
    for k in KEYWORDS:
        items.add(k, K.Keyword)
