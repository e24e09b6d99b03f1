"""Hover: the inferred type of an expression (shape with labels, dtype, domain), and a
declaration's signature and ``##`` doc comment; a built-in form's typed signature and
what it does, as the core describes it."""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types as lsp

from shapescript.api import syntax as S
from shapescript_lsp.documents import Document
from shapescript_lsp.targets import Target, at, target_at


def signature_text(doc: Document, sig: Any) -> str:
    """``fn name(params) -> T`` as declared, on one line."""
    decl = sig.decl
    end = decl.ret.span if decl.ret is not None else (
        decl.params[-1].span if decl.params else decl.name_span)
    span = type(decl.span)(decl.span.file, decl.span.line, decl.span.col, end.end_line,
                           end.end_col)
    text = doc.source(sig.file, span)
    if not text:
        params = ", ".join(f"{p.name}: {p.written}" if p.written else p.name for p in sig.params)
        text = f"fn {sig.name}({params})" + (f" -> {sig.ret}" if sig.ret is not None else "")
    else:
        if decl.ret is None and decl.params:
            text += ")"
    text = re.sub(r"\s*\n\s*", " ", text)
    if sig.is_extern and f'"{sig.extern}"' not in text:
        text += f' = "{sig.extern}"'
    return text


def _md(code: str, doc_text: str | None = None, where: str | None = None) -> str:
    out = f"```shapescript\n{code}\n```"
    if doc_text:
        out += f"\n\n{doc_text}"
    if where:
        out += f"\n\n*{where}*"
    return out


def _where(path: str) -> str | None:
    if path.startswith("<"):
        return f"from the prelude ({path[1:-1]})"
    return None


def const_value_text(value: Any) -> str:
    """A const's value as ShapeScript writes it (``true``, ``"tanh"``, ``1e-06``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def const_type_name(value: Any) -> str:
    """The host type of a const's value."""
    return {bool: "bool", int: "int", float: "float", str: "str"}.get(type(value), "?")


def const_markdown(doc: Document, target: Target) -> str:
    """A const's hover: its value and type, its ``##`` comment, the expression it was
    written as (when that isn't the value itself), and the file it comes from."""
    env = target.env
    key = target.key[1] if target.key else None
    decl = env.const_decls.get(key) if env is not None and key is not None else None
    written = doc.source(decl.span.file, decl.value.span) if decl is not None else ""
    if decl is not None and env is not None and key in env.consts:
        value = target.info
        code = f"const {target.name}: {const_type_name(value)} = {const_value_text(value)}"
        shown = const_value_text(value)
    else:  # its value failed (reported where it is declared)
        code = f"const {target.name} = {written}" if written else f"const {target.name}"
        shown = written
    parts = [decl.doc] if decl is not None and decl.doc else []
    if written and decl is not None and not isinstance(decl.value, (S.Num, S.Str, S.Bool)) \
            and written.strip() != shown:
        parts.append(f"Written `{written.strip()}`.")
    where = _where(env.path) if env is not None else None
    if where is None and env is not None and not doc.is_self(env.path):
        where = f"from {env.path.rsplit('/', 1)[-1]}"
    return _md(code, "\n\n".join(parts) or None, where)


def builtin_markdown(b: Any) -> str:
    """A built-in form's hover (and completion) text: its typed signature, what it
    does, and how a call is written."""
    return _md(b.signature, b.doc, f"built-in · `{b.call}`")


def hover(doc: Document, pos: lsp.Position) -> lsp.Hover | None:
    """What the name or expression at ``pos`` is, as Markdown, with its range."""
    cm = doc.module
    if cm is None:
        return None
    path = at(doc, pos)
    if not path:
        return None
    target = target_at(doc, pos)
    node = path[-1]
    text = None
    if target is not None:
        text = _hover_target(doc, target, cm)
        if target.kind == "builtin":  # and what this call gives
            call = next((n for n in reversed(path[:-1]) if n in cm.types), None)
            t = cm.types.get(call) if call is not None else None
            if t is not None and str(t) != "<error>" and text is not None:
                text += f"\n\nThis call: `{t}`"
    if text is None:
        for n in reversed(path):
            t = cm.types.get(n)
            if t is not None and str(t) != "<error>":
                text = _md(str(t))
                node = n
                break
    if text is None:
        return None
    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, text), doc.span_range(node.span))


def _type_of_local(cm: Any, target: Target) -> Any:
    node = target.node
    t = cm.types.get(node) if node is not None else None
    if t is not None:
        return t
    fn = target.owner
    if fn is not None:
        sig = cm.env.fns.get(fn.name)
        if sig is not None:
            for ps in sig.params:
                if ps.name == target.name and ps.type is not None:
                    return ps.type
    return None


def _hover_target(doc: Document, target: Target, cm: Any) -> str | None:
    k = target.kind
    if k == "fn" and target.info is not None:
        sig = target.info
        return _md(signature_text(doc, sig), getattr(sig.decl, "doc", None), _where(sig.file))
    if k == "dim":
        decl = target.env.dim_decls.get(target.name.split(".")[-1]) if target.env else None
        value = target.info
        return _md(f"dim {target.name} = {value}", decl.doc if decl else None,
                   _where(target.env.path) if target.env else None)
    if k == "const":
        return const_markdown(doc, target)
    if k == "alias":
        decl = target.info
        shape = doc.source(decl.span.file, decl.shape.span) if decl.shape else ""
        return _md(f"dim {target.name} = {shape}", decl.doc)
    if k == "model" and target.info is not None:
        info = target.info
        fields = "\n".join(f"    param {f.name}: {f.type}" for f in info.fields.values())
        return _md(f"model {info.name}:\n{fields}" if fields else f"model {info.name}",
                   info.decl.doc)
    if k == "field" and target.info is not None:
        f = target.info
        return _md(f"param {f.name}: {f.type}", f.decl.doc)
    if k == "local":
        t = _type_of_local(cm, target)
        return _md(f"{target.name}: {t}" if t is not None else target.name)
    if k == "axis":
        return _md(f"axis {target.name}",
                   "A generic axis: its size is whatever the arguments bring, the same "
                   "wherever it appears in the signature.")
    if k == "pymod":
        return _md(f"import python {target.info or target.name}",
                   "A Python module: its values are untyped until `as` gives them a type.")
    if k == "builtin":
        return builtin_markdown(target.info)
    return None
