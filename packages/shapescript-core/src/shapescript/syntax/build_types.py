"""The builder's rules for types and sizes (see ``build.py``).

* Types: ``[axes] dtype? domain?`` and ``Alias dtype? domain?`` are ``TensorTypeExpr``;
  a bare domain (``Real``, ``Index[C]``, ``Logit over C``) or dtype (``u8``, ``f16 Unit``)
  is a ``TensorTypeExpr`` with ``shape=None``; ``int float bool str`` are
  ``ScalarTypeExpr``; ``Size[K] Axis[n] Axes[n]`` are ``SpecialTypeExpr``; ``(T, U)`` is
  a ``TupleTypeExpr`` (``(T)`` is ``T``); any other name is a ``NamedTypeExpr``. The
  target of ``to`` is always a ``TensorTypeExpr`` (``to bool`` is the dtype).
* Sizes: inside ``[…]`` juxtaposed sizes are separate axes, a binary
  ``+ - * /`` joins its operands; inside ``( … )`` juxtaposition is a product
  (``SizeProd``), ``(b)`` is ``b``; ``16gh`` is ``SizeProd((SizeInt 16, SizeName gh))``.
"""

from __future__ import annotations

import math

from fractions import Fraction

from shapescript import vocab
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript import error_codes as ec

DTYPES = frozenset(vocab.DTYPES) | frozenset(vocab.DTYPE_CLASSES)
DOMAINS = frozenset(vocab.DOMAINS)
SCALARS = frozenset({"int", "float", "bool", "str"})
SPECIALS = frozenset({"Size", "Axis", "Axes"})
SIZE_OPS = frozenset({"+", "-", "*", "/"})


class _Shape:
    __slots__ = ("axes", "open", "close")

    def __init__(self, axes, open, close) -> None:
        self.axes = axes
        self.open = open
        self.close = close


def split_numname(text: str) -> tuple[int, str]:
    """``16gh`` -> ``(16, "gh")``."""
    k = 0
    while k < len(text) and text[k].isdigit():
        k += 1
    return int(text[:k]), text[k:]


def r_t_shape(b, c):
    shp = c[0]
    return ast.TensorTypeExpr(shp.axes, b.sp(shp.open, shp.close))


def r_t_shape_words(b, c):
    return make_type(b, ("shape", c[0]), c[1])


def r_t_name(b, c):
    return make_type(b, ("name", c[0]), None)


def r_t_name_words(b, c):
    return make_type(b, ("name", c[0]), c[1])


def r_t_indexed(b, c):
    return make_type(b, ("indexed", c[0], c[1]), None)


def r_t_indexed_words(b, c):
    return make_type(b, ("indexed", c[0], c[1]), c[2])


def _tuple_type(b, c):
    items = c[1]
    if len(items) == 1:
        return ("type", items[0])
    return ("type", ast.TupleTypeExpr(tuple(items), b.sp(c[0], c[2])))


def r_t_tuple(b, c):
    return make_type(b, _tuple_type(b, c), None)


def r_t_tuple_words(b, c):
    return make_type(b, _tuple_type(b, c), c[3])


def r_type_list_one(b, c):
    return [c[0]]


def r_type_list_more(b, c):
    c[0].append(c[2])
    return c[0]


def r_words_one(b, c):
    return [c[0]]


def r_words_more(b, c):
    c[0].append(c[1])
    return c[0]


def r_tw_name(b, c):
    return ("w", c[0], None)


def r_tw_indexed(b, c):
    return ("w", c[0], c[1])


def r_tw_over(b, c):
    # (the class axis's name, `layers.C` for a dim of an imported module; its last token)
    name, _, last = c[1]
    return ("over", c[0], (name, last))


def make_type(b, head, words):
    kind = head[0]
    if kind == "type":
        t = head[1]
        if words:
            _bad_word(b, words[0], "unexpected `{}` after a tuple type")
        return t
    if kind == "shape":
        shp = head[1]
        start, end = shp.open, shp.close
        shape = shp.axes
        ws = words or ()
    elif kind == "name":
        name, start, end = head[1]
        shape = None
        if name in SCALARS and not words:
            return ast.ScalarTypeExpr(name, b.sp(start, end))
        if name in DTYPES or name in DOMAINS:
            ws = [("w", start, None)] + (words or [])
        else:
            if not words:
                return ast.NamedTypeExpr(name, b.sp(start, end))
            dtype, domain, last = _words(b, words)
            return ast.TensorTypeExpr(None, b.sp(start, last), alias=name, dtype=dtype,
                                      domain=domain)
    else:  # indexed: Index[C], Size[K], Axis[n], Axes[n]
        tok, shp = head[1], head[2]
        start, end = tok, shp.close
        shape = None
        if tok.value in SPECIALS:
            if words:
                _bad_word(b, words[0], "unexpected `{}` after `" + tok.value + "[…]`")
            return ast.SpecialTypeExpr(tok.value, _one_axis_name(b, tok, shp),
                                       b.sp(tok, shp.close))
        ws = [("w", tok, shp)] + (words or [])
    dtype, domain, last = _words(b, ws)
    return ast.TensorTypeExpr(shape, b.sp(start, last or end), dtype=dtype,
                              domain=domain)


def _one_axis_name(b, tok, shp) -> str:
    axes = shp.axes
    if len(axes) == 1 and type(axes[0]) is ast.SizeName and axes[0].module is None:
        return axes[0].name
    b.error(ec.E0101, f"expected one axis name in `{tok.value}[…]`",
            b.sp(shp.open, shp.close), "expected a single name",
            help=f"for example `{tok.value}[n]`")
    return ""


def _bad_word(b, w, template):
    tok = w[1]
    b.error(ec.E0101, template.format(tok.value), tok, "not part of this type")


def _words(b, words):
    """``dtype? domain? (over NAME)?`` → (dtype, DomainExpr, last token or span)."""
    dtype = None
    domain = None
    last = None
    for w in words:
        kind, tok, extra = w
        if kind == "over":
            over, last = extra
            if domain is None or domain.over is not None or domain.index is not None:
                b.error(ec.E0101, "unexpected `over`", tok,
                        "`over` follows a domain such as `Logit`",
                        help="for example `Logit over C`")
                continue
            domain = ast.DomainExpr(domain.name, b.sp(domain.span, last), over=over)
            continue
        name = tok.value
        last = extra.close if extra is not None else tok
        if extra is not None:
            if name != "Index":
                b.error(ec.E0101, f"unexpected `[` after `{name}`", extra.open,
                        "only `Index[…]` takes a size here")
                continue
            if domain is not None:
                b.error(ec.E0101, "a type has one domain", tok, "a second domain")
                continue
            axes = extra.axes
            if len(axes) != 1:
                b.error(ec.E0101, "`Index[…]` takes one size",
                        b.sp(extra.open, extra.close),
                        f"{len(axes)} sizes here", help="for example `Index[C]`")
            index = axes[0] if axes else None
            domain = ast.DomainExpr("Index", b.sp(tok, extra.close), index=index)
            continue
        if name in DTYPES:
            if dtype is not None:
                b.error(ec.E0101, "a type has one dtype", tok, "a second dtype")
            elif domain is not None:
                b.error(ec.E0101, "the dtype comes before the domain", tok,
                        f"`{name}` after the domain",
                        help=f"write `{name} {domain.name}`")
            else:
                dtype = name
            continue
        if name in DOMAINS:
            if domain is not None:
                b.error(ec.E0101, "a type has one domain", tok, "a second domain")
            else:
                domain = ast.DomainExpr(name, b.sp(tok, tok))
            continue
        b.error(ec.E0101, f"`{name}` is not a dtype or a domain", tok,
                "expected a dtype (`f32`, `u8` …) or a domain (`Real`, `Unit` …)")
    return dtype, domain, last


def r_shape_empty(b, c):
    return _Shape((), c[0], c[1])


def r_shape(b, c):
    axes = c[1]
    prev = None
    for a in axes:
        if prev is not None and type(a) is ast.SizeName and a.module is None:
            b.sep_pairs[(prev.value, a.name)] = a.span
        prev = a if type(a) is ast.SizeInt else None
    return _Shape(tuple(axes), c[0], c[2])


def r_axes_one(b, c):
    return [_axis(b, c[0])]


def r_axes_more(b, c):
    c[0].append(_axis(b, c[1]))
    return c[0]


def r_axis_op(b, c):
    items = c[0]
    if type(items) is not list:
        items = [items]
    items.append(c[1])
    items.append(c[2])
    return items


class _Fraction:
    """A float where a size is expected (``Dh * 0.25``): E0308 once its axis is built,
    with the division that says it in whole numbers."""

    __slots__ = ("value", "text", "span")

    def __init__(self, value: float, text: str, span: Span) -> None:
        self.value, self.text, self.span = value, text, span


def _fraction_help(b, op: str | None, other, f: _Fraction) -> str:
    """How ``other op f`` is written with whole numbers: ``Dh / 4`` for ``Dh * 0.25``."""
    q = Fraction(f.value).limit_denominator(1000)
    if op == "/":
        q = 1 / q if q else q
    shown = b.text(other.span) if other is not None else "D"
    if " " in shown:
        shown = f"({shown})"
    if q.denominator == 1:
        idiom = f"{shown} * {q.numerator}"
    elif q.numerator == 1:
        idiom = f"{shown} / {q.denominator}"
    else:
        idiom = f"{shown} * {q.numerator} / {q.denominator}"
    return (f"a size is a whole number: write `{idiom}`, a division the checker evaluates "
            "(`/` in a size rounds down, so choose sizes it divides)")


def _no_fraction(b, f, op: str | None = None, other=None):
    """``f`` itself, or for a fraction (reported) a size standing in for it."""
    if type(f) is not _Fraction:
        return f
    b.error(ec.E0308, f"`{f.text}` is not a whole number", f.span, "a fraction in a size",
            help=_fraction_help(b, op, other, f) if other is not None and math.isfinite(f.value)
            else "a size is a whole number: write a fraction of a size as a division, `Dh / 4`")
    return ast.SizeInt(1, f.span)


def _axis(b, items):
    if type(items) is not list:
        return _no_fraction(b, items)
    sp = b.sp
    terms = [items[0]]
    ops = []
    for k in range(1, len(items), 2):
        tok = items[k]
        f = items[k + 1]
        op = tok.value
        if type(f) is _Fraction or type(terms[-1]) is _Fraction:
            if type(terms[-1]) is _Fraction:
                terms[-1] = _no_fraction(b, terms[-1], op, f)
            f = _no_fraction(b, f, op, terms[-1])
        if op not in SIZE_OPS:
            if op == "//":
                b.error(ec.E0101, "`//` in a size", tok, "sizes divide with `/`",
                        help="`/` in a size already rounds down")
                op = "/"
            else:
                b.error(ec.E0101, f"`{op}` in a size", tok, "not a size operator",
                        help="sizes use `+ - * /`")
                op = "*"
        if op == "*" or op == "/":
            t = terms[-1]
            terms[-1] = ast.SizeBin(op, t, f, sp(t.span, f.span))
        else:
            ops.append(op)
            terms.append(f)
    res = _no_fraction(b, terms[0])
    for op, t in zip(ops, terms[1:]):
        t = _no_fraction(b, t)
        res = ast.SizeBin(op, res, t, sp(res.span, t.span))
    return res


def r_f_int(b, c):
    t = c[0]
    return ast.SizeInt(int(t.value), Span(b.file, t.line, t.col, t.end_line, t.end_col,
                                          t.start, t.end))


def r_f_float(b, c):
    t = c[0]
    return _Fraction(float(t.value), t.value, b.sp(t, t))


def r_f_numname(b, c):
    t = c[0]
    k, name = split_numname(t.value)
    digits = len(t.value) - len(name)
    f = b.file
    ks = Span(f, t.line, t.col, t.line, t.col + digits, t.start, t.start + digits)
    ns = Span(f, t.line, t.col + digits, t.end_line, t.end_col, t.start + digits, t.end)
    span = b.sp(t, t)
    b.joined[(k, name)] = span
    return ast.SizeProd((ast.SizeInt(k, ks), ast.SizeName(name, ns)), span)


def r_f_name(b, c):
    t = c[0]
    return ast.SizeName(t.value, Span(b.file, t.line, t.col, t.end_line, t.end_col,
                                      t.start, t.end))


def r_f_dotted(b, c):
    return ast.SizeName(c[2].value, b.sp(c[0], c[2]), module=c[0].value)


def r_f_unknown(b, c):
    return ast.SizeUnknown(c[1].value, b.sp(c[0], c[1]))


def r_f_ellipsis(b, c):
    return ast.SizeEllipsis(b.sp(c[0], c[0]))


def r_f_group(b, c):
    axes = c[1]
    if len(axes) == 1:
        return axes[0]
    return ast.SizeProd(tuple(axes), b.sp(c[0], c[2]))
