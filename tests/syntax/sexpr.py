"""A compact printer of syntax trees for the parser's tests.

``sx(node)`` writes an expression as an s-expression (``(+ a (* b c))``), a type or size in
ShapeScript's own syntax (``[b n D] f32 Real``), and a pattern as einops writes it, so
that tests can compare shapes of trees in one string.
"""

from __future__ import annotations

from shapescript.syntax import ast


def size(s) -> str:
    t = type(s)
    if t is ast.SizeInt:
        return str(s.value)
    if t is ast.SizeName:
        return f"{s.module}.{s.name}" if s.module else s.name
    if t is ast.SizeUnknown:
        return "?" + s.name
    if t is ast.SizeEllipsis:
        return "..."
    if t is ast.SizeBin:
        return f"({size(s.left)} {s.op} {size(s.right)})"
    if t is ast.SizeProd:
        return "{" + " ".join(size(x) for x in s.items) + "}"
    raise TypeError(s)


def shape(axes) -> str:
    return "[" + " ".join(size(a) for a in axes) + "]"


def domain(d) -> str:
    if d.index is not None:
        return f"{d.name}[{size(d.index)}]"
    if d.over is not None:
        return f"{d.name} over {d.over}"
    return d.name


def typ(t) -> str:
    k = type(t)
    if k is ast.TensorTypeExpr:
        parts = []
        if t.shape is not None:
            parts.append(shape(t.shape))
        if t.alias is not None:
            parts.append(t.alias)
        if t.dtype is not None:
            parts.append(t.dtype)
        if t.domain is not None:
            parts.append(domain(t.domain))
        return "tensor " + " ".join(parts)
    if k is ast.NamedTypeExpr:
        return "named " + t.name
    if k is ast.ScalarTypeExpr:
        return "scalar " + t.name
    if k is ast.SpecialTypeExpr:
        return f"{t.kind}[{t.name}]"
    if k is ast.TupleTypeExpr:
        return "(" + ", ".join(typ(x) for x in t.items) + ")"
    raise TypeError(t)


def term(p) -> str:
    t = type(p)
    if t is ast.PatName:
        return p.name
    if t is ast.PatInt:
        return str(p.value)
    if t is ast.PatEllipsis:
        return "..."
    if t is ast.PatGroup:
        return "(" + " ".join(term(x) for x in p.items) + ")"
    raise TypeError(p)


def pattern(p) -> str:
    ins = ", ".join(" ".join(term(x) for x in side) for side in p.inputs)
    return f"<{ins} -> {' '.join(term(x) for x in p.output)}>"


def sx(e) -> str:
    t = type(e)
    if t is ast.Name:
        return e.id
    if t is ast.Num:
        return e.text
    if t is ast.NumName:
        return f"{e.value}{e.name}!"
    if t is ast.Str:
        return repr(e.value)
    if t is ast.Bool:
        return "true" if e.value else "false"
    if t is ast.NoneLit:
        return "none"
    if t is ast.Placeholder:
        return "_"
    if t is ast.Attr:
        return f"{sx(e.value)}.{e.attr}"
    if t is ast.Call:
        args = []
        for a in e.args:
            args.append(f"{a.name}={sx(a.value)}" if a.name else sx(a.value))
        if e.pattern is not None:
            args.insert(e.pattern_pos, pattern(e.pattern))
        head = "call|>" if e.piped else "call"
        return f"({head} {sx(e.func)}{''.join(' ' + a for a in args)})"
    if t is ast.Constructor:
        out = f"({e.name} {shape(e.shape)}"
        if e.dtype:
            out += " " + e.dtype
        if e.fill is not None:
            out += " fill=" + sx(e.fill)
        return out + ")"
    if t is ast.Range:
        return f"(.. {sx(e.lo)} {sx(e.hi)})"
    if t is ast.Index:
        return f"(idx {sx(e.value)}{''.join(' ' + sx(i) for i in e.indices)})"
    if t in (ast.BinOp, ast.Compare, ast.BoolOp):
        return f"({e.op} {sx(e.left)} {sx(e.right)})"
    if t is ast.UnaryOp:
        return f"({'neg' if e.op == '-' else 'not'} {sx(e.operand)})"
    if t is ast.Convert:
        return f"(to {sx(e.value)} {typ(e.target)})"
    if t is ast.AssertType:
        return f"(as {sx(e.value)} {typ(e.type)})"
    if t is ast.Lambda:
        return f"(=> ({' '.join(e.params)}) {sx(e.body)})"
    if t is ast.TupleExpr:
        return "(tuple" + "".join(" " + sx(x) for x in e.items) + ")"
    raise TypeError(e)


def stmt(s) -> str:
    t = type(s)
    if t is ast.Assign:
        targets = ", ".join(sx(x) for x in s.targets)
        ann = f": {typ(s.annotation)}" if s.annotation is not None else ""
        return f"{targets}{ann} = {sx(s.value)}"
    if t is ast.Return:
        return "return" + ("" if s.value is None else " " + sx(s.value))
    if t is ast.ExprStmt:
        return sx(s.expr)
    if t is ast.If:
        parts = [f"if {sx(b.cond)}: {block(b.body)}" for b in s.branches]
        if s.orelse is not None:
            parts.append(f"else: {block(s.orelse)}")
        return " ".join(parts)
    if t is ast.For:
        return f"for {', '.join(s.targets)} in {sx(s.iter)}: {block(s.body)}"
    if t is ast.With:
        return f"with {s.mode}: {block(s.body)}"
    raise TypeError(s)


def block(body) -> str:
    return "{" + "; ".join(stmt(s) for s in body) + "}"
