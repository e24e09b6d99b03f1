"""``model`` declarations to Python classes.

``model Head:`` becomes a subclass of ``shapescript.rt.Model`` (a ``torch.nn.Module``)
that carries its fields' types, initialisers and doc comments as class attributes::

    class Head(_ss_rt.Model):
        'A tiny head.\\n\\nFields:\\n- w: [D C]: the weights.'
        _ss_field_specs = (_ss_rt.TensorSpec('w', 'head.ss:7:5', '[D C]', (4, 3), 'f32', None),)
        _ss_field_inits = (('default',),)
        _ss_field_docs = {'w': 'The weights.'}

The class goes at the front of the module's tail (after the last ``.ss`` line), before
any checked entry whose argument checks name it, and after the standalone helpers that
define ``_ss_rt``; the class body only reads dims (module constants) and the runtime.
"""

from __future__ import annotations

from typing import Any

from shapescript.check.resolutions import FieldInit
from shapescript.codegen.exprs import ExprGen, pyname
from shapescript.codegen.pytext import literal
from shapescript.syntax import ast


def _init_code(ctx: Any, init: ast.Expr | None) -> str:
    """A field initialiser as a tuple literal for ``_ss_field_inits``."""
    if init is None:
        return "('default',)"
    rec = ctx.cm.res.get(init)
    if not isinstance(rec, FieldInit):
        return "('default',)"
    kind, values = rec.name, dict(rec.values)
    g = ExprGen(ctx.cm, ctx)

    def val(key: str, default: str) -> str:
        node = values.get(key)
        return f"float({g.expr(node)})" if node is not None else default

    if kind in ("zeros", "ones"):
        return f"({literal(kind)},)"
    if kind == "normal":
        return f"('normal', {val('mean', '0.0')}, {val('std', '1.0')})"
    if kind == "uniform":
        return f"('uniform', {val('lo', '0.0')}, {val('hi', '1.0')})"
    return "('default',)"


def _docstring(decl: ast.ModelDecl, written: dict[str, str]) -> str:
    parts = [decl.doc.strip()] if decl.doc else [f"The ShapeScript model {decl.name}."]
    lines = []
    for f in decl.fields:
        if f.name not in written:
            continue
        doc = f" {' '.join(f.doc.split())}" if f.doc else ""
        lines.append(f"- {f.name}: {written[f.name]}{':' if doc else ''}{doc}")
    if lines:
        parts.append("Fields:\n" + "\n".join(lines))
    return "\n\n".join(parts)


def model_class_lines(ctx: Any, decl: ast.ModelDecl) -> list[str]:
    """The Python lines of the class for ``decl`` (empty if it failed to declare)."""
    info = ctx.cm.env.models.get(decl.name)
    if info is None or info.decl is not decl:
        return []
    specs, inits, docs, written = [], [], {}, {}
    for f in decl.fields:
        fi = info.fields.get(f.name)
        if fi is None or fi.decl is not f:
            continue
        text = fi.written.text
        written[f.name] = text
        where = ctx.specs.where(f.span)
        specs.append(ctx.specs.tensor_spec(f.name, where, text, fi.type, fi.written))
        inits.append(_init_code(ctx, f.init))
        if f.doc:
            docs[f.name] = f.doc.strip()
    tup = lambda xs: "(" + ", ".join(xs) + ("," if len(xs) == 1 else "") + ")"  # noqa: E731
    return [
        f"class {pyname(decl.name)}(_ss_rt.Model):",
        f"    {literal(_docstring(decl, written))}",
        f"    _ss_field_specs = {tup(specs)}",
        f"    _ss_field_inits = {tup(inits)}",
        f"    _ss_field_docs = {literal(docs)}",
    ]


def gen_model(ctx: Any, decl: ast.ModelDecl) -> None:
    """Adds the class of ``decl`` to the front of ``ctx.tail``, after earlier models."""
    lines = model_class_lines(ctx, decl)
    if not lines:
        return
    pos = getattr(ctx, "_ss_models_end", 0)
    ctx.tail[pos:pos] = lines
    ctx._ss_models_end = pos + len(lines)


__all__ = ["gen_model", "model_class_lines"]
