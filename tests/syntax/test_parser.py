"""Tests of the ShapeScript parser (shapescript.syntax.parser).

Every program of the book chapters and DECISIONS.md parses (``programs/*.ss``); the
shapes of trees are compared as s-expressions (``sx`` below); each E01xx code has cases.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shapescript.syntax import ast
from shapescript.syntax.parser import parse, parse_expr

PROGRAMS = Path(__file__).parent / "programs"

# ---------------------------------------------------------------------------
# A compact printer of syntax trees: expressions as s-expressions, types and sizes in
# ShapeScript's syntax (``{a b}`` for a juxtaposed product), patterns as einops writes
# them. test_parser_props.py uses it too.



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
    if t is ast.WholeAxis:
        return ".."
    if t is ast.RestAxes:
        return "..."
    if t is ast.NamedIndex:
        return f"(= {e.name} {sx(e.value)})"
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


# ---------------------------------------------------------------------------
# Helpers


def mod(src: str, path: str = "t.ss") -> ast.Module:
    """Parse ``src``, which must be free of diagnostics."""
    m, diags = parse(src, path)
    assert not diags, [(d.code, d.message, d.line, d.column) for d in diags]
    assert m is not None
    return m


def expr(src: str) -> str:
    """``src`` as an expression, printed by ``sx``; it must parse cleanly."""
    e, diags = parse_expr(src)
    assert not diags, [(d.code, d.message, d.labels[0].message) for d in diags]
    return sx(e)


def errors(src: str, path: str = "t.ss"):
    m, diags = parse(src, path)
    return m, [(d.code, d.line, d.column) for d in diags], diags


def decl(src: str, name: str):
    for d in mod(src).decls:
        if getattr(d, "name", None) == name:
            return d
    raise KeyError(name)


def body(src: str) -> str:
    """The statements of the only function in ``src``."""
    (fn,) = mod(src).decls
    return block(fn.body)


# ---------------------------------------------------------------------------
# Every program of the seeds parses


ALL_PROGRAMS = sorted(PROGRAMS.glob("*.ss"))


def test_there_are_programs():
    names = {p.name for p in ALL_PROGRAMS}
    assert {"spotter.ss", "untyped.ss", "tail.ss", "nudge.ss", "mirror.ss", "thumbnail.ss",
            "halves.ss", "heads.ss", "reach.ss"} <= names
    assert {f"e170{k}.ss" for k in range(1, 7)} <= names


@pytest.mark.parametrize("path", ALL_PROGRAMS, ids=lambda p: p.name)
def test_program_parses(path):
    src = path.read_text(encoding="utf-8")
    m = mod(src, path.name)
    assert m.decls
    for d in m.decls:
        assert d.span.file == path.name
        assert src[d.span.start:d.span.end].split()[0] in (
            "devices", "import", "from", "dim", "fn", "export", "extern", "model")


def spotter():
    return mod((PROGRAMS / "spotter.ss").read_text(encoding="utf-8"), "spotter.ss")


def test_spotter_declarations():
    m = spotter()
    kinds = [(type(d).__name__, getattr(d, "name", getattr(d, "module", getattr(d, "device",
                                                                                None))))
             for d in m.decls]
    assert kinds[:3] == [("Devices", "cpu"), ("ImportPython", "torch"), ("DimDecl", "S")]
    names = [n for _, n in kinds]
    assert names[2:11] == ["S", "P", "N", "D", "Dt", "Dc", "C", "L", "Images"]
    assert names[11:] == ["nonblank", "norm", "pool", "head", "patchify", "mix_patches", "embed",
                          "mix_channels", "forward", "loss", "predict", "per_class_accuracy",
                          "confusion", "predict_saved", "roll", "nudge", "max_pool2d",
                          "thumbnail"]
    assert m.doc is None
    assert len(m.doc_spans) == 27


def test_spotter_docs_attach_to_declarations():
    m = spotter()
    docs = {getattr(d, "name", None): getattr(d, "doc", None) for d in m.decls}
    assert docs["S"] == "Side of each image, in pixels."
    assert docs["Images"] == "A batch of grayscale images."
    assert docs["mix_channels"] == "Mixes information between the channels of each token."
    assert docs["roll"] == "Rolls the axis `dims` round by `shifts` places."
    assert docs["thumbnail"] == "A 7×7 summary of each image."
    assert docs["forward"] == "The class scores of each image."


def test_spotter_dims_and_alias():
    m = spotter()
    d = {x.name: x for x in m.decls if isinstance(x, ast.DimDecl)}
    assert size(d["N"].size) == "((S / P) * (S / P))"
    assert typ(d["Images"].shape) == "tensor [b 1 S S]"
    assert d["S"].name_span.col == 5


def test_spotter_bodies():
    m = spotter()
    fns = {x.name: x for x in m.decls if isinstance(x, (ast.FnDecl, ast.ExternDecl))}
    assert block(fns["nonblank"].body) == (
        "{return (idx img (> (call reduce img <b c h w -> b> max) 0.5))}")
    assert block(fns["norm"].body) == (
        "{mu = (call mean x over=D); "
        "var = (call mean (call square (- x mu)) over=D); "
        "return (/ (- x mu) (call sqrt (+ var eps)))}")
    assert sx(fns["pool"].body) == "(call mean x over=n)"
    assert sx(fns["head"].body) == "(@ (call pool x) w)"
    assert typ(fns["head"].ret) == "tensor [b C] Logit over C"
    assert block(fns["patchify"].body) == (
        "{return (call|> rearrange img <b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c)> p1=P p2=P)}")
    assert block(fns["mix_patches"].body) == (
        "{h = (call|> gelu (call einsum (call norm x) w1 <b N D, N Dt -> b Dt D>)); "
        "return (+ x (call einsum h w2 <b Dt D, Dt N -> b N D>))}")
    assert block(fns["mix_channels"].body) == (
        "{return (call|> add x (call|> matmul (call|> gelu (call|> matmul (call|> norm x) w1))"
        " w2))}")
    assert block(fns["forward"].body) == (
        "{x = (call embed (to (to img tensor Unit) tensor Signed) w_e); "
        "for l in (.. 0 L): {x = (call|> mix_channels (call|> mix_patches x (idx tw1 l) "
        "(idx tw2 l)) (idx cw1 l) (idx cw2 l))}; "
        "return (call|> head (call|> norm x) w_h)}")
    assert block(fns["per_class_accuracy"].body) == (
        "{return (call|> map C (=> (c) (/ (to (call sum (and (== pred c) (== y c))) tensor f32)"
        " (call maximum (to (call sum (== y c)) tensor f32) 1.0))))}")
    assert block(fns["confusion"].body) == (
        "{return (call|> map C (=> (t) (call|> map C (=> (p) (call sum (and (== y t) "
        "(== pred p)))))))}")
    assert block(fns["predict_saved"].body) == (
        "{w = (call torch.load 'weights.pt'); "
        "return (call predict img (as (idx w 0) tensor [(P * P) D]) "
        "(as (idx w 1) tensor [L N Dt]) (as (idx w 2) tensor [L Dt N]) "
        "(as (idx w 3) tensor [L D Dc]) (as (idx w 4) tensor [L Dc D]) "
        "(as (idx w 5) tensor [D C]))}")
    assert sx(fns["nudge"].body) == "(call roll img 1 dims=w)"
    assert sx(fns["thumbnail"].body) == "(call max_pool2d img 3 stride=2)"


def test_spotter_signatures():
    m = spotter()
    fns = {x.name: x for x in m.decls if isinstance(x, (ast.FnDecl, ast.ExternDecl))}
    fwd = fns["forward"]
    assert [(p.name, typ(p.type)) for p in fwd.params] == [
        ("img", "tensor Images u8"), ("w_e", "tensor [(P * P) D]"), ("tw1", "tensor [L N Dt]"),
        ("tw2", "tensor [L Dt N]"), ("cw1", "tensor [L D Dc]"), ("cw2", "tensor [L Dc D]"),
        ("w_h", "tensor [D C]")]
    assert typ(fns["nonblank"].ret) == "tensor [?k 1 S S]"
    assert typ(fns["loss"].ret) == "tensor [] NonNeg"
    assert typ(fns["confusion"].ret) == "tensor [C C] i64"
    assert typ(fns["nonblank"].params[0].type) == "named Images"
    norm = fns["norm"]
    assert norm.params[1].type is None and sx(norm.params[1].default) == "1e-5"
    roll = fns["roll"]
    assert isinstance(roll, ast.ExternDecl) and roll.target == "torch.roll"
    assert [typ(p.type) for p in roll.params] == ["tensor [...] u8", "Size[K]", "Axis[n]"]
    pool = fns["max_pool2d"]
    assert typ(pool.ret) == "tensor [b c (((h - K) / St) + 1) (((w - K) / St) + 1)]"
    assert len(pool.ret.shape) == 4
    assert typ(pool.params[0].type) == "tensor [b c h w]"


def test_book_10_snippets():
    untyped = mod((PROGRAMS / "untyped.ss").read_text())
    fn = untyped.decls[-1]
    assert fn.name == "saved_head"
    assert block(fn.body) == "{return (idx (call torch.load 'weights.pt') 5)}"
    # The book's E0413 points at 7:12-7:39: the span of the returned expression.
    ret = fn.body[0].value
    assert (ret.span.line, ret.span.col, ret.span.end_col) == (7, 12, 39)
    tail = mod((PROGRAMS / "tail.ss").read_text())
    assert tail.decls[0].doc == r"The complementary error function, $1 - \operatorname{erf}(x)$."
    assert typ(tail.decls[0].params[0].type) == "tensor Real"
    assert typ(tail.decls[0].ret) == "tensor NonNeg"
    assert typ(tail.decls[2].ret) == "tensor [b D] NonNeg"
    mirror = mod((PROGRAMS / "mirror.ss").read_text())
    assert typ(mirror.decls[0].params[1].type) == "Axes[n]"
    show = mod((PROGRAMS / "show_classes.ss").read_text())
    assert block(show.decls[1].body) == "{for name in shapes.CLASSES: {(call print name)}}"
    tests = mod((PROGRAMS / "test_images.ss").read_text())
    assert typ(tests.decls[2].ret) == "tensor [?k 1 S S] u8"


def test_book_17_snippets():
    m = mod((PROGRAMS / "llama_forward.ss").read_text())
    fwd = m.decls[0]
    assert [typ(p.type) for p in fwd.params] == [
        "named Llama", "tensor [b n] Index[V]", "tensor [b n] Index[P]"]
    assert typ(fwd.ret) == "tensor [b n V] Logit over V"
    assert block(fwd.body) == (
        "{x = (call embedding ids m.embed); "
        "for l in (.. 0 L): {x = (call block m x pos l)}; "
        "return (call|> linear (call|> rms_norm x over=D weight=m.norm eps=1e-5) m.output)}")
    e1701 = mod((PROGRAMS / "e1701.ss").read_text()).decls[2]
    assert e1701.export and e1701.name == "load_qkv" and e1701.params == ()
    assert block(e1701.body) == "{return (as (call torch.load 'w_qkv.pt') tensor [D (3 * D)])}"
    e1703 = mod((PROGRAMS / "e1703.ss").read_text()).decls[2]
    assert block(e1703.body) == (
        "{w = (call numpy.ones 768); return (* x (as w tensor [D]))}")
    e1705 = mod((PROGRAMS / "e1705.ss").read_text()).decls[0]
    assert typ(e1705.params[1].type) == "scalar int"
    e1706 = mod((PROGRAMS / "e1706.ss").read_text()).decls[0]
    assert block(e1706.body) == "{if (> (call sum x) 0): {return x}; return (neg x)}"
    fixed = mod((PROGRAMS / "e1706_fixed.ss").read_text()).decls[0]
    assert block(fixed.body) == (
        "{if (> (call sum x) 0): {y = x} else: {y = (neg x)}; return y}")


def test_decisions_examples():
    halves = mod((PROGRAMS / "halves.ss").read_text()).decls[0]
    assert typ(halves.ret) == "tensor [b n (D / 2)]"
    assert block(halves.body) == (
        "{parts = (call rearrange x <b n (k two) -> two b n k> two=2); "
        "w = (to (arange [(D / 2)]) tensor f32); "
        "return (* (idx parts 0) w)}")
    heads = mod((PROGRAMS / "heads.ss").read_text()).decls[1]
    assert typ(heads.ret) == "tensor [3 b H n (D / H)]"
    assert block(heads.body) == (
        "{return (call rearrange x <b n (three h d) -> three b h n d> three=3 h=H)}")
    reach = mod((PROGRAMS / "reach.ss").read_text())
    smooth = reach.decls[2]
    assert sx(smooth.body) == "(as (call|> torch.sinc x) tensor [n K])"
    g = reach.decls[4]
    assert block(g.body) == (
        "{z = (call torch.zeros 8); return (+ (call smooth x) (as z tensor [K]))}")
    prelude = mod((PROGRAMS / "prelude_externs.ss").read_text())
    softmax = prelude.decls[1]
    assert typ(softmax.params[0].type) == "tensor [...] Float Logit over n"
    assert [p.name for p in softmax.params] == ["x", "over"]
    assert typ(softmax.params[1].type) == "Axis[n]"
    assert typ(softmax.ret) == "tensor [...] Float Prob over n"
    linear = prelude.decls[2]
    assert typ(linear.params[0].type) == "tensor [... i] Float"
    assert sx(linear.params[2].default) == "none"
    assert typ(prelude.decls[5].ret) == "tensor [...] Float Pos"
    sdpa = prelude.decls[4]
    assert typ(sdpa.params[3].type) == "tensor [n m] Mask"
    assert typ(sdpa.params[4].type) == "scalar float"


def test_language_examples():
    m = mod((PROGRAMS / "language_examples.ss").read_text())
    kinds = [type(d).__name__ for d in m.decls]
    assert kinds == ["Devices", "ImportPython", "Import", "DimDecl", "DimDecl", "DimDecl",
                     "FnDecl", "FnDecl", "ModelDecl"]
    model = m.decls[-1]
    assert model.doc == "A tiny MLP-Mixer."
    assert [(f.name, typ(f.type), f.init and sx(f.init), f.doc) for f in model.fields] == [
        ("w_e", "tensor [(P * P) D]", None, "Patch embedding."),
        ("tw1", "tensor [L N Dt]", None, None),
        ("norm", "tensor [D]", "ones", None)]
    assert m.decls[3].doc == "Width of each token."


# ---------------------------------------------------------------------------
# Precedence (DECISIONS §1)


@pytest.mark.parametrize("src, tree", [
    ("-1.5 / D", "(/ (neg 1.5) D)"),
    ("a + b to f32", "(to (+ a b) tensor f32)"),
    ("(i to f32) * w", "(* (to i tensor f32) w)"),
    ("sum(p == c and y == c)", "(call sum (and (== p c) (== y c)))"),
    ("not a == b and c", "(and (not (== a b)) c)"),
    ("not a and not b or c", "(or (and (not a) (not b)) c)"),
    ("not not a", "(not (not a))"),
    ("a or b and c", "(or a (and b c))"),
    ("a + b * c - d", "(- (+ a (* b c)) d)"),
    ("a - b - c", "(- (- a b) c)"),
    ("a / b // c % d @ e", "(@ (% (// (/ a b) c) d) e)"),
    ("a ** b ** c", "(** a (** b c))"),
    ("-a ** b", "(neg (** a b))"),
    ("2 ** -1 * 3", "(* (** 2 (neg 1)) 3)"),
    ("- -a", "(neg (neg a))"),
    ("a < b + 1", "(< a (+ b 1))"),
    ("a == b to f32", "(to (== a b) tensor f32)"),
    ("not x as bool", "(not (as x scalar bool))"),
    ("x as T |> f", "(call|> f (as x named T))"),
    ("f(x)[0].w", "(idx (call f x) 0).w"),
    ("a.b.c(d)", "(call a.b.c d)"),
    ("-x[0]", "(neg (idx x 0))"),
    ("0..n - 1", "(.. 0 (- n 1))"),
    ("c => c + 1", "(=> (c) (+ c 1))"),
    ("(a, b) => a * b", "(=> (a b) (* a b))"),
    ("c => x |> f", "(=> (c) (call|> f x))"),
    ("x |> map(c => c * 2)", "(call|> map x (=> (c) (* c 2)))"),
    ("(a, b)", "(tuple a b)"),
    ("(a,)", "(tuple a)"),
    ("()", "(tuple)"),
    ("(((a)))", "a"),
    ("x[i, j]", "(idx x i j)"),
    ("x[a..b]", "(idx x (.. a b))"),
    ("x[m]", "(idx x m)"),
    ('"a\\"b"', "'a\"b'"),
    ("true or false", "(or true false)"),
    ("f(none)", "(call f none)"),
    ("f(x, eps=1e-6)", "(call f x eps=1e-6)"),
    ("f(x,)", "(call f x)"),
    ("f()", "(call f)"),
    ("2e3 + 1.5e-2 + 3.0", "(+ (+ 2e3 1.5e-2) 3.0)"),
    ("x.to", "x.to"),
    ("m.in", "m.in"),
])
def test_precedence(src, tree):
    assert expr(src) == tree


def test_range_is_not_a_float():
    assert body("fn f():\n    for i in 0..L:\n        print(i)\n") == (
        "{for i in (.. 0 L): {(call print i)}}")
    assert expr("x[1..2]") == "(idx x (.. 1 2))"


@pytest.mark.parametrize("src, tree", [
    ("x |> f(a, b)", "(call|> f x a b)"),
    ("x |> f", "(call|> f x)"),
    ("x |> torch.tanh", "(call|> torch.tanh x)"),
    ("x |> add(y, _)", "(call|> add y x)"),
    ("x |> f(a, k=_)", "(call|> f a k=x)"),
    ("x |> to Unit", "(to x tensor Unit)"),
    ("x |> to Unit |> to Signed", "(to (to x tensor Unit) tensor Signed)"),
    ("x |> to f16 Unit", "(to x tensor f16 Unit)"),
    ("x |> norm |> matmul(w1) |> gelu", "(call|> gelu (call|> matmul (call|> norm x) w1))"),
    ("(x |> f) as T", "(as (call|> f x) named T)"),
    ("a + b |> f", "(call|> f (+ a b))"),
    ("x |> f(g(y))", "(call|> f x (call g y))"),
    ("C |> map(c => e)", "(call|> map C (=> (c) e))"),
])
def test_pipes(src, tree):
    assert expr(src) == tree


def test_pipe_marks_calls_and_keeps_spans():
    src = "fn f(x: int) = x |> add(y, _)\n"
    call = mod(src).decls[0].body
    assert call.piped
    assert src[call.span.start:call.span.end] == "x |> add(y, _)"
    assert [a.value.id for a in call.args] == ["y", "x"]
    assert src[call.args[1].span.start:call.args[1].span.end] == "_"


# ---------------------------------------------------------------------------
# Patterns (DECISIONS §4)


@pytest.mark.parametrize("src, tree", [
    ("rearrange(x, b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c), p1=P, p2=P)",
     "(call rearrange x <b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c)> p1=P p2=P)"),
    ("reduce(img, b c h w -> b, max)", "(call reduce img <b c h w -> b> max)"),
    ("repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)", "(call repeat k <b Hkv n Dh -> b (Hkv R) n Dh>)"),
    ("einsum(a, b: b N D, N Dt -> b Dt D)", "(call einsum a b <b N D, N Dt -> b Dt D>)"),
    ("einsum(x, w: i j, j k -> i k, precision=p)",
     "(call einsum x w <i j, j k -> i k> precision=p)"),
    ("rearrange(x, ... (k 2) -> ... k 2)", "(call rearrange x <... (k 2) -> ... k 2>)"),
    ("rearrange(x, b 1 n -> b n)", "(call rearrange x <b 1 n -> b n>)"),
    ("rearrange((u, v), s b n d -> b n (s d))",
     "(call rearrange (tuple u v) <s b n d -> b n (s d)>)"),
    ("img |> rearrange(b c h w -> b (c h w))", "(call|> rearrange img <b c h w -> b (c h w)>)"),
    ("x |> reduce(b n d -> b d, mean)", "(call|> reduce x <b n d -> b d> mean)"),
    ("x |> einsum(w: b N D, N Dt -> b Dt D)", "(call|> einsum x w <b N D, N Dt -> b Dt D>)"),
    ("reduce(x, b n -> , sum)", "(call reduce x <b n -> > sum)"),
    ("rearrange(f(x), b n -> n b)", "(call rearrange (call f x) <b n -> n b>)"),
    ("rearrange(reduce(x, a b c -> a b, max), a b -> b a)",
     "(call rearrange (call reduce x <a b c -> a b> max) <a b -> b a>)"),
    ("torch.einsum(s, x)", "(call torch.einsum s x)"),
    ("rearrange(x)", "(call rearrange x)"),  # no pattern: the checker's E0601
])
def test_patterns(src, tree):
    assert expr(src) == tree


def test_pattern_positions_and_spans():
    src = "fn f(img: int) = img |> rearrange(b c h w -> b (c h w))\n"
    call = mod(src).decls[0].body
    assert call.pattern_pos == 1 and len(call.args) == 1 and call.piped
    pat = call.pattern
    assert src[pat.span.start:pat.span.end] == "b c h w -> b (c h w)"
    group = pat.output[1]
    assert isinstance(group, ast.PatGroup)
    assert src[group.span.start:group.span.end] == "(c h w)"
    src = "fn f(img: int) = reduce(img, b c h w -> b, max)\n"
    call = mod(src).decls[0].body
    assert call.pattern_pos == 1 and [sx(a.value) for a in call.args] == ["img", "max"]
    src = "fn f(a: int) = einsum(a, b: b N D, N Dt -> b Dt D)\n"
    call = mod(src).decls[0].body
    assert call.pattern_pos == 2
    assert len(call.pattern.inputs) == 2
    assert src[call.pattern.span.start:call.pattern.span.end] == "b N D, N Dt -> b Dt D"
    src = "fn f(a: int) = rearrange(x,\n    b n d ->\n    b d n)\n"
    call = mod(src).decls[0].body
    assert (call.pattern.span.line, call.pattern.span.end_line) == (2, 3)


@pytest.mark.parametrize("src, message", [
    ("rearrange(x, b (c (d e)) -> b c d e)", "groups can't be nested in a pattern"),
    ("rearrange(x, b (c + 1) -> b c)", "unexpected `+` in a pattern"),
    ("rearrange(x, b c -> b -> c)", "more than one `->` in this pattern"),
    ("einsum(x, w: i j, j k)", "expected `->` in this pattern"),
    ("einsum(x, w)", "`einsum` needs a pattern"),
    ("einsum(x, w:)", "expected a pattern after `:`"),
    ("rearrange(x, b 16gh -> b)", "number-name in a pattern"),
    ("rearrange(x, a -> a, b -> b)", "more than one pattern in this call"),
])
def test_pattern_errors(src, message):
    _, codes, diags = errors(f"fn f(x: int) = {src}\n")
    assert [d.message for d in diags if d.code == "E0601"][:1] == [message], codes
    assert all(d.code == "E0601" for d in diags)


# ---------------------------------------------------------------------------
# Constructors (DECISIONS §16)


@pytest.mark.parametrize("src, tree", [
    ("causal[n n]", "(causal [n n])"),
    ("zeros[b n D] bf16", "(zeros [b n D] bf16)"),
    ("ones[D]", "(ones [D])"),
    ("eye[n n]", "(eye [n n])"),
    ("arange[D/2]", "(arange [(D / 2)])"),
    ("randn[b D] + rand[b n]", "(+ (randn [b D]) (rand [b n]))"),
    ("full[n n](-1e9)", "(full [n n] fill=(neg 1e9))"),
    ("full[n] i32(0)", "(full [n] i32 fill=0)"),
    ("arange[D/2] to f32", "(to (arange [(D / 2)]) tensor f32)"),
    ("zeros[]", "(zeros [])"),
    ("torch.zeros(8)", "(call torch.zeros 8)"),
    ("torch.zeros[8]", "(idx torch.zeros 8)"),
    ("f(attn_mask=causal[n n])", "(call f attn_mask=(causal [n n]))"),
])
def test_constructors(src, tree):
    assert expr(src) == tree


def test_bare_constructor_names_are_names():
    m = mod("model M:\n    param w: [D] = zeros\n    param v: [D] = ones\n")
    assert [sx(f.init) for f in m.decls[0].fields] == ["zeros", "ones"]


# ---------------------------------------------------------------------------
# Types and sizes


def typeof(src: str) -> str:
    fn = mod(f"fn f(x: {src}) = x\n").decls[0]
    return typ(fn.params[0].type)


@pytest.mark.parametrize("src, text", [
    ("[b n D]", "tensor [b n D]"),
    ("[b n D] f32 Real", "tensor [b n D] f32 Real"),
    ("[P*P D]", "tensor [(P * P) D]"),
    ("[b] Index[C]", "tensor [b] Index[C]"),
    ("[b C] Logit over C", "tensor [b C] Logit over C"),
    ("Images u8", "tensor Images u8"),
    ("Feats bf16 NonNeg", "tensor Feats bf16 NonNeg"),
    ("layers.Feats", "named layers.Feats"),
    ("layers.Feats u8", "tensor layers.Feats u8"),
    ("[] Mask", "tensor [] Mask"),
    ("[C C] i64", "tensor [C C] i64"),
    ("[?k 1 S S] u8", "tensor [?k 1 S S] u8"),
    ("[...] u8", "tensor [...] u8"),
    ("[... i]", "tensor [... i]"),
    ("Real", "tensor Real"),
    ("NonNeg", "tensor NonNeg"),
    ("Pos", "tensor Pos"),
    ("Unit", "tensor Unit"),
    ("Signed", "tensor Signed"),
    ("Mask", "tensor Mask"),
    ("Index[C]", "tensor Index[C]"),
    ("Logit over C", "tensor Logit over C"),
    ("LogProb over A", "tensor LogProb over A"),
    ("Prob over A", "tensor Prob over A"),
    ("u8", "tensor u8"),
    ("f16 Unit", "tensor f16 Unit"),
    ("Float", "tensor Float"),
    ("int", "scalar int"),
    ("float", "scalar float"),
    ("bool", "scalar bool"),
    ("str", "scalar str"),
    ("Size[K]", "Size[K]"),
    ("Axis[n]", "Axis[n]"),
    ("Axes[n]", "Axes[n]"),
    ("(int, [n] f32)", "(scalar int, tensor [n] f32)"),
    ("([n], ([m], bool))", "(tensor [n], (tensor [m], scalar bool))"),
    ("(int)", "scalar int"),
    ("Mixer", "named Mixer"),
    ("[n] bool", "tensor [n] bool"),
])
def test_types(src, text):
    assert typeof(src) == text


@pytest.mark.parametrize("src, text", [
    ("[b c (h - K)/St + 1 (w - K)/St + 1]",
     "[b c (((h - K) / St) + 1) (((w - K) / St) + 1)]"),
    ("[n -1]", "[(n - 1)]"),
    ("[n - 1 m]", "[(n - 1) m]"),
    ("[(h - K w)]", "[{(h - K) w}]"),
    ("[(b)]", "[b]"),
    ("[(gh 16)]", "[{gh 16}]"),
    ("[16gh]", "[{16 gh}]"),
    ("[2 n]", "[2 n]"),
    ("[b 16gh]", "[b {16 gh}]"),
    ("[2emb]", "[{2 emb}]"),
    ("[?k D]", "[?k D]"),
    ("[... D]", "[... D]"),
    ("[b layers.D]", "[b layers.D]"),
    ("[n+1]", "[(n + 1)]"),
    ("[3*D]", "[(3 * D)]"),
    ("[a + b * c - d / e]", "[((a + (b * c)) - (d / e))]"),
    ("[]", "[]"),
    ("[(S / P) * (S / P)]", "[((S / P) * (S / P))]"),
])
def test_sizes(src, text):
    fn = mod(f"fn f(x: {src}) = x\n").decls[0]
    assert shape(fn.params[0].type.shape) == text


def test_number_name_spans():
    src = "fn f(x: [b 16gh]) = x\n"
    prod = mod(src).decls[0].params[0].type.shape[1]
    assert isinstance(prod, ast.SizeProd)
    k, n = prod.items
    assert (k.value, n.name) == (16, "gh")
    assert src[prod.span.start:prod.span.end] == "16gh"
    assert src[k.span.start:k.span.end] == "16"
    assert src[n.span.start:n.span.end] == "gh"
    assert n.span.col == k.span.end_col


def test_conversion_targets():
    assert expr("x to f32") == "(to x tensor f32)"
    assert expr("x to f16 Unit") == "(to x tensor f16 Unit)"
    assert expr("x to bool") == "(to x tensor bool)"
    assert expr("x to Feats") == "(to x tensor Feats)"
    assert expr("x as [?k 1 S S] u8") == "(as x tensor [?k 1 S S] u8)"
    assert expr("x as (int, int)") == "(as x (scalar int, scalar int))"
    assert expr("x as int") == "(as x scalar int)"


# ---------------------------------------------------------------------------
# Declarations


def test_devices():
    for src, dev in [("devices cpu", "cpu"), ("devices cuda", "cuda"), ("devices cuda[0]",
                                                                         "cuda[0]"),
                     ("devices mps", "mps"), ("devices cuda[1]", "cuda[1]")]:
        d = mod(src + "\n").decls[0]
        assert isinstance(d, ast.Devices) and d.device == dev
        assert d.span.end_col == len(src) + 1


def test_imports():
    m = mod("import python torch\nimport python torch.nn.functional as F\nimport layers\n"
            "import pkg.layers as l\nfrom layers import x as y, z\nfrom a.b import c\n")
    a, b, c, d, e, f = m.decls
    assert (type(a).__name__, a.module, a.alias) == ("ImportPython", "torch", None)
    assert (b.module, b.alias) == ("torch.nn.functional", "F")
    assert (type(c).__name__, c.module, c.alias) == ("Import", "layers", None)
    assert (d.module, d.alias) == ("pkg.layers", "l")
    assert isinstance(e, ast.FromImport) and e.module == "layers"
    assert [(n.name, n.alias) for n in e.names] == [("x", "y"), ("z", None)]
    assert f.module == "a.b" and [n.name for n in f.names] == ["c"]


def test_dims():
    m = mod("dim D = 32\ndim N = (S / P) * (S / P)\ndim Images = [b 1 S S] u8\n"
            "dim F = [b n D]\ndim G = 16gh\ndim Real = 3\ndim X = layers.D + 1\n")
    d, n, images, f, g, real, x = m.decls
    assert size(d.size) == "32" and d.shape is None
    assert size(n.size) == "((S / P) * (S / P))"
    assert images.size is None and typ(images.shape) == "tensor [b 1 S S] u8"
    assert typ(f.shape) == "tensor [b n D]"
    assert size(g.size) == "{16 gh}"
    assert real.name == "Real"  # E0203 is the checker's
    assert size(x.size) == "(layers.D + 1)"


def test_functions():
    m = mod("fn f(x: [n], eps = 1e-5, k: int = 3) -> [n] = x\n"
            "export fn g() -> [3] = h()\n"
            "fn main():\n    print(1)\n"
            "fn long(a: [n],\n        b: [n],\n) -> (int, int):\n    return 1, 2\n"
            "fn one() -> int: return 1\n")
    f, g, main, long, one = m.decls
    assert [(p.name, p.type and typ(p.type), p.default and sx(p.default)) for p in f.params] == [
        ("x", "tensor [n]", None), ("eps", None, "1e-5"), ("k", "scalar int", "3")]
    assert not f.export and g.export and g.params == ()
    assert main.ret is None and block(main.body) == "{(call print 1)}"
    assert [p.name for p in long.params] == ["a", "b"]
    assert typ(long.ret) == "(scalar int, scalar int)"
    assert block(long.body) == "{return (tuple 1 2)}"
    assert block(one.body) == "{return 1}"
    assert f.name_span.col == 4 and g.span.col == 1
    assert m.decls[1].span.end_col == len("export fn g() -> [3] = h()") + 1


def test_externs():
    m = mod('extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"\n'
            'extern fn noop(x: int) = "m.noop"\n')
    erfc, noop = m.decls
    assert erfc.target == "torch.special.erfc" and typ(erfc.ret) == "tensor NonNeg"
    assert noop.ret is None and noop.target == "m.noop"


def test_models():
    m = mod("## M's doc.\nmodel M:\n    ## w's doc,\n    ## on two lines.\n"
            "    param w: [F D] = normal(std=1 / D ** 0.5)\n\n    # a comment\n"
            "    param b: [F]\n    param u: [D] = uniform(-1, 1)\n")
    (model,) = m.decls
    assert model.doc == "M's doc." and model.name_span.col == 7
    w, b, u = model.fields
    assert w.doc == "w's doc,\non two lines."
    assert sx(w.init) == "(call normal std=(/ 1 (** D 0.5)))"
    assert b.doc is None and b.init is None
    assert sx(u.init) == "(call uniform (neg 1) 1)"


def test_module_doc():
    m = mod("## The module.\n## Second line.\n\n## D's doc.\ndim D = 3\n")
    assert m.doc == "The module.\nSecond line."
    assert m.decls[0].doc == "D's doc."
    assert len(m.doc_spans) == 2
    assert (m.doc_spans[0].line, m.doc_spans[0].end_line) == (1, 2)
    # Without the blank line, the block documents the declaration.
    m = mod("## D's doc.\ndim D = 3\n")
    assert m.doc is None and m.decls[0].doc == "D's doc."
    # A block followed by a blank line elsewhere documents nothing.
    m = mod("dim A = 1\n## stray\n\ndim D = 3\n")
    assert m.doc is None and m.decls[1].doc is None
    # Inside bodies `##` is an ordinary comment.
    m = mod("fn f():\n    ## not a doc\n    x = 1\n")
    assert m.decls[0].doc is None
    # Comment lines don't break a block.
    m = mod("## a\n# b\n## c\ndim D = 3\n")
    assert m.decls[0].doc == "a\nc"


# ---------------------------------------------------------------------------
# Statements


def test_statements():
    src = ("fn f(x: int):\n"
           "    y = x\n"
           "    a, b = g(x)\n"
           "    h: [b n F] = linear(x, W)\n"
           "    m.w = y\n"
           "    if a > 0:\n"
           "        return a\n"
           "    elif b:\n"
           "        pass_(1)\n"
           "    elif c:\n"
           "        d = 1\n"
           "    else:\n"
           "        return\n"
           "    for i in 0..3:\n"
           "        print(i)\n"
           "    for v in pyvalue:\n"
           "        print(v)\n"
           "    for xb, yb in batches(shuffle(data, seed=0), size=64):\n"
           "        update(m, g, opt)\n"
           "    with Train:\n"
           "        l = loss(m, xb)\n"
           "    if x: y = 1\n"
           "    return a, b\n")
    assert body(src) == (
        "{y = x; a, b = (call g x); h: tensor [b n F] = (call linear x W); m.w = y; "
        "if (> a 0): {return a} if b: {(call pass_ 1)} if c: {d = 1} else: {return}; "
        "for i in (.. 0 3): {(call print i)}; for v in pyvalue: {(call print v)}; "
        "for xb, yb in (call batches (call shuffle data seed=0) size=64): "
        "{(call update m g opt)}; "
        "with Train: {l = (call loss m xb)}; if x: {y = 1}; return (tuple a b)}")
    fn = mod(src).decls[0]
    loop = fn.body[7]
    assert [(s.line, s.col) for s in loop.target_spans] == [(18, 9), (18, 13)]
    ifs = fn.body[4]
    assert len(ifs.branches) == 3 and ifs.span.line == 6 and ifs.span.end_line == 13


def test_nested_blocks_and_blank_lines():
    src = ("fn f(x: int) -> int:\n"
           "    if x:\n"
           "\n"
           "        # comment\n"
           "        if y:\n"
           "            return 1\n"
           "\n"
           "    return 2\n"
           "\n"
           "\n"
           "dim D = 3\n")
    m = mod(src)
    assert block(m.decls[0].body) == "{if x: {if y: {return 1}}; return 2}"
    assert m.decls[1].name == "D"


def test_assignment_of_tuples_and_parens():
    assert body("fn f():\n    (a, b) = t\n") == "{a, b = t}"
    assert body("fn f():\n    x = a, b\n") == "{x = (tuple a b)}"
    assert body("fn f():\n    t[0]\n") == "{(idx t 0)}"


def test_keyword_group_argument():
    src = "fn f(x: [b h w]) = mean(x, over=(h w))\n"
    call = mod(src).decls[0].body
    group = call.args[1]
    assert group.name == "over"
    assert isinstance(group.value, ast.TupleExpr)
    assert [n.id for n in group.value.items] == ["h", "w"]
    assert src[group.value.span.start:group.value.span.end] == "(h w)"
    assert expr("mean(x, over=(h))") == "(call mean x over=h)"
    assert expr("mean(x, over=n)") == "(call mean x over=n)"


# ---------------------------------------------------------------------------
# Spans


def test_spans_are_exact():
    src = ("fn norm(x: [b n D], eps = 1e-5) -> [b n D]:\n"
           "    mu = mean(x, over=D)\n"
           "    return (x - mu) / sqrt(var + eps)\n")
    fn = mod(src, "norm.ss").decls[0]

    def text(node):
        s = node.span
        assert s.file == "norm.ss"
        lines = src.split("\n")
        if s.line == s.end_line:
            assert lines[s.line - 1][s.col - 1:s.end_col - 1] == src[s.start:s.end]
        return src[s.start:s.end]

    assert text(fn) == src.rstrip("\n")
    assert text(fn.params[0]) == "x: [b n D]"
    assert text(fn.params[0].type) == "[b n D]"
    assert text(fn.params[0].type.shape[2]) == "D"
    assert text(fn.params[1]) == "eps = 1e-5"
    assert text(fn.ret) == "[b n D]"
    assign, ret = fn.body
    assert text(assign) == "mu = mean(x, over=D)"
    assert text(assign.value) == "mean(x, over=D)"
    assert text(assign.value.args[1]) == "over=D"
    assert text(ret) == "return (x - mu) / sqrt(var + eps)"
    assert text(ret.value) == "(x - mu) / sqrt(var + eps)"
    assert text(ret.value.left) == "(x - mu)"
    assert text(ret.value.right.args[0].value) == "var + eps"
    assert (ret.value.span.line, ret.value.span.col) == (3, 12)


def test_spans_of_types_and_domains():
    src = "fn f(x: [b C] Logit over C, y: [b] Index[C]) = x\n"
    fn = mod(src).decls[0]
    t = fn.params[0].type
    assert src[t.span.start:t.span.end] == "[b C] Logit over C"
    assert src[t.domain.span.start:t.domain.span.end] == "Logit over C"
    t = fn.params[1].type
    assert src[t.domain.span.start:t.domain.span.end] == "Index[C]"
    assert src[t.domain.index.span.start:t.domain.index.span.end] == "C"


def test_crlf_and_bom():
    m = mod("\ufeffdim D = 3\r\nfn f(x: [D]) -> [D]:\r\n    return x\r\n")
    assert m.decls[0].span.col == 1
    assert m.decls[1].body[0].span.line == 3


# ---------------------------------------------------------------------------
# Errors


def test_e0101_unexpected_token():
    m, codes, diags = errors("fn f(x: int) = (x + )\n")
    assert codes == [("E0101", 1, 21)]
    assert diags[0].message == "unexpected token `)`"
    assert diags[0].labels[0].message == "expected an expression"
    assert m is None


def test_e0101_chained_comparison():
    _, codes, diags = errors("fn f(a: int) = a < b < c\n")
    assert codes == [("E0101", 1, 22)]
    assert diags[0].message == "comparisons don't chain"


def test_e0101_conversion_then_operator():
    _, codes, diags = errors("fn f(i: int) = i to f32 * w\n")
    assert codes == [("E0101", 1, 25)]
    assert "(i to f32) *" in diags[0].help


def test_e0101_other_cases():
    cases = {
        "fn f(x: int) = f(a=1, b)\n": "positional argument after keyword arguments",
        "fn f(x: int) = f(_)\n": "`_` outside a pipe stage",
        "fn f(x: int) = x |> add(_, _)\n": "more than one `_` in a pipe stage",
        "fn f(x: [n] foo) = x\n": "`foo` is not a dtype or a domain",
        "fn f(x: [n] Unit f32) = x\n": "the dtype comes before the domain",
        "fn f(x: [n] f32 f16) = x\n": "a type has one dtype",
        "fn f(x: Axis[n m]) = x\n": "expected one axis name in `Axis[…]`",
        "fn f(x: [n // 2]) = x\n": "`//` in a size",
        "fn f(x: int) = to Unit\n": "unexpected token `to`",
        "fn f(x: int) = x to int\n": "expected a dtype or a domain after `to`",
        "fn f(x: int):\n    f(x) = 3\n": "can't assign to this expression",
        "fn f(x: int) = 1 => x\n": "expected lambda parameters before `=>`",
        "dim X = 3 4\n": "a dim is one size",
        "fn f(x: int) = zeros[n] Foo\n": "`Foo` is not a dtype",
        "fn f(x: int) = $\n": "unknown character `$`",
        "fn f(a: int) = a == not b\n": "unexpected token `not`",
        "fn f(a: int) = a as int == b\n": "unexpected token `==`",
        "fn f(x: int) = x)\n": "unexpected closing `)`",
    }
    for src, message in cases.items():
        _, codes, diags = errors(src)
        assert message in [d.message for d in diags], (src, [d.message for d in diags])
        assert all(c == "E0101" for c, _, _ in codes), (src, codes)


def test_e0102_indentation():
    _, codes, diags = errors("dim D = 3\n    dim E = 4\n")
    assert codes == [("E0102", 2, 1)] and diags[0].message == "unexpected indentation"
    _, codes, diags = errors("fn f():\nreturn 1\n")
    assert codes[0][0] in ("E0102", "E0101")
    _, codes, diags = errors("fn f():\n    x = 1\n")
    assert codes == []
    _, codes, diags = errors("fn f() -> int:\n\n")
    assert codes == [("E0102", 2, 1)] and diags[0].message == "expected an indented block"
    _, codes, diags = errors("fn f():\n\treturn 1\n")
    assert codes == [("E0102", 2, 1)] and diags[0].message == "tab in indentation"
    _, codes, diags = errors("fn f():\n    if x:\n        y = 1\n      z = 2\n")
    assert codes == [("E0102", 4, 1)]
    assert diags[0].message == "unindent does not match any outer indentation level"
    _, codes, diags = errors("fn f():\n    x = 1\n        y = 2\n")
    assert codes == [("E0102", 3, 1)]


def test_e0103_unclosed():
    m, codes, diags = errors("fn f(x: int) = g(x, (1 + 2)\n")
    assert codes == [("E0103", 1, 17)]
    assert diags[0].message == "unclosed `(`"
    assert diags[0].labels[0].message == "this bracket is never closed"
    # The next declaration at column 1 still parses.
    m, codes, diags = errors("fn f(x: [n) = x\ndim D = 3\n")
    assert codes == [("E0103", 1, 9)] and [d.name for d in m.decls] == ["D"]
    _, codes, diags = errors('fn f(x: int) = g("abc)\n')
    assert ("E0103", 1, 18) in codes
    assert any(d.message == "unterminated string" for d in diags)


def test_e0104_number_name_outside_a_size():
    m, codes, diags = errors("fn f(x: int):\n    y = 2x\n    return y\n")
    assert codes == [("E0104", 2, 9)]
    assert diags[0].message == "number-name outside a size"
    assert diags[0].help == "write `2 * x`"
    assign = m.decls[0].body[0]
    assert isinstance(assign.value, ast.NumName)
    assert (assign.value.value, assign.value.name) == (2, "x")
    assert errors("fn f(x: [b 16gh]) = x\n")[1] == []


def test_e0105_warning():
    m, codes, diags = errors("fn f(x: [2 n], y: [2n]) = x\n")
    assert codes == [("E0105", 1, 20)]
    assert diags[0].severity == "warning" and m is not None and len(m.decls) == 1
    assert errors("fn f(x: [2 n]) = x\nfn g(y: [2n]) = y\n")[1] == []


def test_e0106_not_a_pipe_stage():
    m, codes, diags = errors("fn f(x: int) = x |> f as T\n")
    assert codes == [("E0106", 1, 21)]
    assert diags[0].message == "not a pipe stage"
    assert diags[0].help == "write `(x |> f) as T`"
    assert sx(m.decls[0].body) == "(as (call|> f x) named T)"
    _, codes, _ = errors("fn f(x: int) = x |> w[0]\n")
    assert codes == [("E0106", 1, 21)]
    _, codes, _ = errors("fn f(x: int) = x |> to Unit * 2\n")
    assert codes == [("E0106", 1, 21)]


def test_every_broken_declaration_is_reported():
    src = ("dim A = 1\n"
           "fn f(x: int) = (x + )\n"
           "dim B = 2\n"
           "fn g(x: [n) = x\n"
           "dim C = 3\n"
           "fn h(x: int):\n"
           "    y = x +\n"
           "    z = 1 1\n"
           "    if y:\n"
           "        w = *\n"
           "    return y\n"
           "dim D = 4\n"
           "model M:\n"
           "    w: [n]\n"
           "dim E = 2x + 1\n")
    m, codes, _ = errors(src)
    assert [d.name for d in m.decls] == ["A", "B", "C", "D", "E"]
    assert codes == [("E0101", 2, 21), ("E0103", 4, 9), ("E0101", 7, 12), ("E0101", 8, 11),
                     ("E0101", 10, 13), ("E0101", 14, 5)]


def test_diagnostics_are_sorted_and_spans_point_into_the_file():
    src = "fn f(x: int) = g(x, (1 + 2)\nfn k() = 2x\nfn h() = )\n"
    _, _, diags = errors(src, "bad.ss")
    assert [(d.line, d.column) for d in diags] == sorted((d.line, d.column) for d in diags)
    assert all(d.file == "bad.ss" for d in diags)


@pytest.mark.parametrize("src", [
    "", "\n\n", "# only a comment\n", "## only a doc\n", "   ", "\t", "\x00\x01", "(((((",
    ")))", "]", "fn", "fn f(", "dim", "model M:", "model M:\n    param", "export", "extern fn",
    "fn f() = rearrange(", "fn f() = rearrange(x, a ->", "fn f() = einsum(x: ",
    "fn f() = einsum(: a -> a)", "fn f() = zeros[", "fn f() = x |>", "fn f() = (a, b) =>",
    "\"", "\"\\", "fn f() = \"\\\n", "\ufeff", "\r\r\n\r", "fn f():\n\n\n", "if x:\n    y",
    "fn f(x: [" + "(" * 500 + "]) = x", "fn f() = " + "(" * 2000 + "x" + ")" * 2000,
    "fn f() = " + "-" * 3000 + "x", "fn f() = " + " ** ".join(["x"] * 3000),
    "fn f() = " + " |> ".join(["x"] * 3000), "fn f() = " + "not " * 3000 + "x",
    "fn f() = x" + "[0]" * 3000, "dim D = " + "+".join(["1"] * 3000),
    "\u2028\u0085x = 1", "fn f() = 1e", "fn f() = 1.e5", "fn f() = 0x10", "fn f() = 1_000",
])
def test_never_raises(src):
    m, diags = parse(src, "weird.ss")
    assert m is None or isinstance(m, ast.Module)
    for d in diags:
        assert d.code.startswith(("E01", "E06")), (d.code, d.message)
        assert d.line >= 1 and d.column >= 1


def test_empty_and_comment_only_files():
    for src in ["", "\n", "# c\n", "## doc\n"]:
        m, diags = parse(src, "e.ss")
        assert m is not None and m.decls == () and diags == []
    assert parse("## doc\n", "e.ss")[0].doc == "doc"


def test_bytes_input_is_decoded():
    m, diags = parse(b"dim D = 3\n", "b.ss")
    assert diags == [] and m.decls[0].name == "D"
