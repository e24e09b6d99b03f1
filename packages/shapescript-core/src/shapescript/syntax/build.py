"""From the LALR parser's reductions to the syntax tree (``ast.py``).

The parser (``parser.py``) calls ``RULES[alias](builder, children)`` for each reduction
of ``grammar.lark``, with every child of the rule (tokens included), and the rule returns
the value that stands for it. The tree is built bottom-up in one pass; there is no
intermediate lark ``Tree``. A rule with one child and no callback (a unit rule, such as
``-> pass``) keeps its child's value.

The rules live by what they build, each module stating the decisions it makes for the
rest of the compiler: ``build_decls`` (declarations, statements, ``##`` docs),
``build_exprs`` (precedence, pipes, calls, atoms) and ``build_types`` (types, sizes).
``Builder`` holds what they share for one file: the source, the doc comments, the
diagnostics, and the state of the declaration being built.
"""

from __future__ import annotations

from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax import ast, build_decls, build_exprs, build_types
from shapescript import error_codes as ec

__all__ = ["RULES", "Builder", "iter_nodes"]


def _rules(*modules) -> dict:
    out: dict = {}
    for m in modules:
        for name, fn in vars(m).items():
            if name.startswith("r_") and callable(fn):
                if name[2:] in out:  # pragma: no cover - a programming error
                    raise RuntimeError(f"two builders for rule {name[2:]}")
                out[name[2:]] = fn
    return out


# alias in grammar.lark -> fn(builder, children) -> the alternative's value
RULES = _rules(build_decls, build_exprs, build_types)


class Builder:
    """What the rules share while one file is built."""

    def __init__(self, path: str, src: str, docs: dict[int, str]) -> None:
        self.file = path
        self.src = src
        self.docs = docs
        self.diags: list[Diagnostic] = []
        self.reset()

    def reset(self) -> None:
        """Forget per-declaration state (at each chunk and each declaration)."""
        self.ph_made = 0  # `_` placeholders made, and used by a pipe stage
        self.ph_used = 0
        # `16 gh` (two axes) and `16gh` (one) in one declaration: E0105
        self.sep_pairs: dict[tuple[int, str], Span] = {}
        self.joined: dict[tuple[int, str], Span] = {}

    def sp(self, a, b) -> Span:
        """The span from the start of ``a`` to the end of ``b`` (tokens or spans)."""
        if type(a) is Span and type(b) is Span:
            return a.to(b)
        return Span(self.file, a.line, a.col, b.end_line, b.end_col, a.start, b.end)

    def error(self, code: str, message: str, at, label: str = "", **kw) -> None:
        span = at if type(at) is Span else self.sp(at, at)
        self.diags.append(Diagnostic.error(code, message, span, label, **kw))

    def text(self, a, b=None) -> str:
        b = a if b is None else b
        return self.src[a.start:b.end]

    def doc_at(self, tok):
        """The ``##`` block documenting what starts on ``tok``'s line, if any."""
        return self.docs.get(tok.line) if self.docs else None

    def decl_done(self, decl):
        """A whole declaration: report what only shows once it is complete."""
        if self.ph_made != self.ph_used:
            self.stray_placeholders(decl)
        if self.joined and self.sep_pairs:
            for key, span in self.joined.items():
                other = self.sep_pairs.get(key)
                if other is not None:
                    k, n = key
                    self.diags.append(Diagnostic.warning(
                        ec.E0105, f"`{k}{n}` is one axis here, but `{k} {n}` is two axes "
                        "elsewhere in this declaration", span, f"one axis, {k} * {n}",
                        help=f"write `{k}*{n}` for one axis, or `{k} {n}` for two"))
        self.reset()
        return decl

    def stray_placeholders(self, decl) -> None:
        for node in iter_nodes(decl):
            if type(node) is ast.Placeholder:
                self.error(ec.E0101, "`_` outside a pipe stage", node.span,
                           "the placeholder `_` is only an argument of a pipe stage",
                           help="write `x |> f(a, _)` to pass `x` in its place")


def iter_nodes(node):
    """Every syntax node under ``node`` (itself included), depth first, iteratively."""
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            stack.extend(reversed(x))
            continue
        fields = getattr(type(x), "__dataclass_fields__", None)
        if fields is None:
            continue
        yield x
        for name in reversed(list(fields)):
            v = getattr(x, name)
            if v is None or type(v) in (str, int, float, bool) or type(v) is Span:
                continue
            stack.append(v)
