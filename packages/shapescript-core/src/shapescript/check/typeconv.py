"""Written types to checker types: sizes, labels, aliases, dtypes and domains.

A size is normalised with dims replaced by their values; its label keeps dims as
symbols, so ``[P*P D]`` has sizes ``16, 32`` and labels ``P*P, D``.
"""

from __future__ import annotations

from typing import Callable

from shapescript.check.env import (
    RESERVED_TYPE_NAMES, AxisParam, ModuleEnv, ParamType, SizeParam, dim_value,
)
from shapescript.check.sizes import Size, SizeTooLarge
from shapescript.check.types import (
    BOOL, DTYPES, ERROR, FLOAT, FLOAT_DTYPES, INT, INT_DTYPES, MASK, NOBOUND, PY, REAL,
    STR, Axis, Domain, TensorType, TupleType, Type,
)
from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript.vocab import CLASS_DOMAINS, DOMAIN_DTYPE
from shapescript import error_codes as ec

Report = Callable[[Diagnostic], None]

VARIADIC = Size.var("...")
SCALARS = {"int": INT, "float": FLOAT, "bool": BOOL, "str": STR}


class SizeError(Exception):
    """A size expression that can't be used here; the diagnostic is already reported."""


def default_domain(dtype: str) -> Domain:
    if dtype in FLOAT_DTYPES or dtype == "Float":
        return REAL
    if dtype == "bool":
        return MASK
    return NOBOUND


class TypeBuilder:
    """Builds checker types from written ones, for one signature or one ``as``.

    ``generics`` collects the signature's generic axes; with ``new_generics`` False
    (a body's ``as`` or annotation) an unknown plain name is E0706 instead.
    ``fresh`` renames ``?k`` unknowns so that two ``as`` never share one.
    """

    def __init__(self, env: ModuleEnv, report: Report, *, generics: set[str] | None = None,
                 new_generics: bool = True, fresh: str = "",
                 renames: dict[str, tuple[Size, Size]] | None = None,
                 context: str = "as") -> None:
        self.env = env
        # Where the type is written, for messages: "as", "annotation" or "constructor".
        self.context = context
        self.report = report
        self.generics = generics if generics is not None else set()
        self.new_generics = new_generics
        self.fresh = fresh
        # In a body: generic name → (size, label) as the body sees it.
        self.renames = renames or {}
        self.failed = False

    def error(self, code: str, msg: str, span: Span, label: str = "", help: str | None = None) -> None:
        self.failed = True
        self.report(Diagnostic.error(code, msg, span, label, help=help))

    # -- sizes ---------------------------------------------------------------
    def size(self, e: ast.SizeExpr) -> tuple[Size, Size]:
        """``(size, label)`` of a size expression; raises SizeError after reporting."""
        if isinstance(e, ast.SizeInt):
            s = Size.const(e.value)
            return s, s
        if isinstance(e, ast.SizeName):
            return self.name(e)
        if isinstance(e, ast.SizeUnknown):
            s = Size.var("?" + e.name + self.fresh)
            return s, s
        if isinstance(e, ast.SizeBin):
            a, la = self.size(e.left)
            b, lb = self.size(e.right)
            if e.op == "+":
                return a + b, la + lb
            if e.op == "-":
                return a - b, la - lb
            if e.op == "*":
                return a * b, la * lb
            if b.is_const and b.const_value == 0:
                self.error(ec.E0302, "division by zero in a size", e.span, "this divides by 0")
                raise SizeError
            return a.floordiv(b), la.floordiv(lb)
        if isinstance(e, ast.SizeProd):
            s, lab = Size.const(1), Size.const(1)
            for item in e.items:
                a, la = self.size(item)
                s, lab = s * a, lab * la
            return s, lab
        if isinstance(e, ast.SizeEllipsis):
            self.error(ec.E0304, "`...` is not a size here", e.span, "`...` stands for axes, not one size")
            raise SizeError
        raise AssertionError(f"unknown size node {e!r}")

    def name(self, e: ast.SizeName) -> tuple[Size, Size]:
        if e.module is not None:
            v = dim_value(self.env, e.name, e.module)
            if v is None and e.module in self.env.poisoned:
                self.failed = True  # a failed import, already reported
                raise SizeError
            if v is None and self.env.is_const(e.name, e.module):
                self.const_as_size(f"{e.module}.{e.name}", self.env.const_value(e.name, e.module), e.span)
            if v is None:
                self.error(ec.E0201, f"unknown dim `{e.module}.{e.name}`", e.span, "not a dim of that module")
                raise SizeError
            return Size.const(v), Size.var(f"{e.module}.{e.name}")
        v = self.env.dim_size(e.name)
        if v is not None:
            return Size.const(v), Size.var(e.name)
        if e.name in self.renames:
            return self.renames[e.name]
        if self.env.is_const(e.name):
            self.const_as_size(e.name, self.env.const_value(e.name), e.span)
        if e.name in self.env.poisoned:
            self.failed = True  # a failed import, already reported
            raise SizeError
        if e.name in RESERVED_TYPE_NAMES:
            self.error(ec.E0203, f"`{e.name}` is reserved and can't name an axis", e.span,
                       "a dtype, domain or type name")
            raise SizeError
        if e.name in self.generics:
            s = Size.var(e.name)
            return s, s
        if not self.new_generics:
            if self.context == "constructor":
                self.error(ec.E0201, f"unknown size `{e.name}`", e.span,
                           "neither a dim nor a generic of this signature",
                           help="a constructor's sizes are literals, dims and the signature's generics")
                raise SizeError
            where = "an annotation" if self.context == "annotation" else "`as`"
            self.error(ec.E0706, f"`{e.name}` is a new name in {where}", e.span,
                       "neither a dim nor a generic of this signature",
                       help=f"use a `?` size for an unknown size: `?{e.name}`")
            raise SizeError
        self.generics.add(e.name)
        s = Size.var(e.name)
        return s, s

    def const_as_size(self, name: str, value: object, span: Span) -> None:
        """E0306: a const is a host value, never a size (nor a new generic)."""
        from shapescript.check.consts import size_error_parts

        msg, label, help_ = size_error_parts(name, value)  # type: ignore[arg-type]
        self.error(ec.E0306, msg, span, label, help=help_)
        self.failed = True
        raise SizeError

    def axes(self, shape: tuple[ast.SizeExpr, ...]) -> tuple[Axis, ...]:
        out: list[Axis] = []
        for e in shape:
            if isinstance(e, ast.SizeEllipsis):
                if any(a.variadic for a in out):
                    # Which axes each `...` takes would be a guess (and the run-time
                    # checks can't make one): one `...` a type.
                    self.error(ec.E1709, "more than one `...` in a type", e.span,
                               "a second `...`", help="keep one `...`; name the other "
                               "axes, or give them a shape alias")
                    raise SizeError
                out.append(Axis(VARIADIC, VARIADIC, variadic=True))
                continue
            size, label = self.size(e)
            out.append(Axis(size, label))
        return tuple(out)

    # -- types ----------------------------------------------------------------
    def tensor(self, te: ast.TypeExpr) -> TensorType | None:
        """A tensor type, or None after reporting an error."""
        t = self.type(te)
        if isinstance(t, TensorType):
            return t
        return None

    def type(self, te: ast.TypeExpr) -> ParamType:
        try:
            return self._type(te)
        except SizeError:
            return ERROR
        except SizeTooLarge as err:
            self.error(err.code, err.message, te.span, err.label, err.help)
            return ERROR

    def _type(self, te: ast.TypeExpr) -> ParamType:
        if isinstance(te, ast.ScalarTypeExpr):
            return SCALARS[te.name]
        if isinstance(te, ast.SpecialTypeExpr):
            if te.kind == "Size":
                return SizeParam(te.name)
            return AxisParam(te.name, many=te.kind == "Axes")
        if isinstance(te, ast.TupleTypeExpr):
            return TupleType(tuple(self._type(t) for t in te.items))  # type: ignore[misc]
        if isinstance(te, ast.NamedTypeExpr):
            model = self.env.model(te.name)
            if model is not None:
                return model.type
            if te.name in SCALARS:
                return SCALARS[te.name]
            return self._tensor(ast.TensorTypeExpr(None, te.span, alias=te.name))
        return self._tensor(te)

    def _tensor(self, te: ast.TensorTypeExpr) -> Type:
        shape = te.shape
        dtype, domain_expr = te.dtype, te.domain
        if te.alias is not None:
            found = self.env.alias(te.alias)
            if found is None:
                if self.env.model(te.alias) is not None:
                    return self.env.model(te.alias).type  # type: ignore[union-attr]
                if te.alias.partition(".")[0] in self.env.poisoned:
                    self.failed = True  # a failed import, already reported
                    return ERROR
                import difflib

                known = sorted(set(self.env.aliases) | set(self.env.models) | set(SCALARS))
                close = difflib.get_close_matches(te.alias, known, n=1, cutoff=0.75)
                self.error(ec.E0201, f"unknown type `{te.alias}`", te.span,
                           "not a shape alias, model or type",
                           help=f"a type with a similar spelling exists: `{close[0]}`" if close else None)
                return ERROR
            alias_env, decl = found
            at = decl.shape
            assert at is not None
            if dtype is not None and at.dtype is not None:
                self.error(ec.E0407, f"the alias `{te.alias}` has a dtype already", te.span,
                           f"`{te.alias}` is `{at.dtype}`")
                return ERROR
            if domain_expr is not None and at.domain is not None:
                self.error(ec.E0407, f"the alias `{te.alias}` has a domain already", te.span,
                           f"`{te.alias}` is `{at.domain.name}`")
                return ERROR
            dtype = dtype or at.dtype
            domain_expr = domain_expr or at.domain
            shape = at.shape
            if alias_env is not self.env:
                # The alias's dims are its own file's: resolve its shape there.
                sub = TypeBuilder(alias_env, self.report, generics=self.generics,
                                  new_generics=self.new_generics, fresh=self.fresh,
                                  renames=self.renames, context=self.context)
                axes = sub.axes(shape or ())
                self.failed |= sub.failed
                # ... and its labels are its file's: name them as this file does.
                labels = self.env.labels_from(alias_env)
                if labels:
                    axes = tuple(_relabel_axis(ax, labels) for ax in axes)
                over_map = labels if domain_expr is at.domain else None
                return self._finish(axes, dtype, domain_expr, te.span, over_map)
        axes = (Axis(VARIADIC, VARIADIC, variadic=True),) if shape is None else self.axes(shape)
        return self._finish(axes, dtype, domain_expr, te.span)

    def _finish(self, axes: tuple[Axis, ...], dtype: str | None,
                domain_expr: ast.DomainExpr | None, span: Span,
                over_map: dict[str, Size] | None = None) -> Type:
        domain: Domain | None = None
        if domain_expr is not None:
            domain = self.domain(domain_expr, axes, over_map)
            if domain is None:
                return ERROR
        if dtype is None:
            if domain is None:
                dtype = "f32"
            else:
                dtype = DOMAIN_DTYPE.get(domain.kind, "f32")
        elif dtype not in DTYPES and dtype not in ("Float", "Int"):
            self.error(ec.E0201, f"unknown dtype `{dtype}`", span, "not a dtype")
            return ERROR
        if domain is None:
            domain = default_domain(dtype)
        elif domain.kind == "Index" and dtype not in INT_DTYPES and dtype != "Int":
            self.error(ec.E0404, f"`Index` needs an integer dtype, not `{dtype}`", span,
                       f"`{dtype}` with `Index`", help="drop the dtype: an `Index` is `i64`")
            return ERROR
        elif domain.kind == "Mask" and dtype != "bool":
            self.error(ec.E0404, f"`Mask` needs the dtype `bool`, not `{dtype}`", span,
                       f"`{dtype}` with `Mask`", help="drop the dtype: a `Mask` is `bool`")
            return ERROR
        return TensorType(axes, dtype, domain)

    def domain(self, d: ast.DomainExpr, axes: tuple[Axis, ...],
               over_map: dict[str, Size] | None = None) -> Domain | None:
        if d.name == "Index":
            if d.index is None:
                self.error(ec.E0201, "`Index` needs a bound: `Index[C]`", d.span)
                return None
            size, label = self.size(d.index)
            return Domain("Index", index=size, index_label=label)
        if d.name in CLASS_DOMAINS:
            if d.over is None:
                self.error(ec.E0705, f"`{d.name}` needs a class axis: `{d.name} over C`", d.span,
                           "no class axis")
                return None
            label = Size.var(d.over)
            if d.over in self.renames:
                label = self.renames[d.over][1]
            elif over_map and d.over in over_map:
                label = over_map[d.over]
            count = sum(1 for a in axes if not a.variadic and a.label == label)
            variadic = any(a.variadic for a in axes)
            if count > 1 or (count == 0 and not variadic):
                what = "repeated in" if count > 1 else "absent from"
                self.error(ec.E0705, f"the class axis `{d.over}` is {what} this type", d.span,
                           f"`over {d.over}` names no single axis",
                           help="name an axis the type has exactly once")
                return None
            return Domain(d.name, over=label)
        if d.name in ("Real", "NonNeg", "Pos", "Unit", "Signed", "Mask"):
            return Domain(d.name)
        self.error(ec.E0201, f"unknown domain `{d.name}`", d.span)
        return None


def _relabel_axis(ax: Axis, labels: dict[str, Size]) -> Axis:
    if ax.variadic or not ax.label.free_vars() & labels.keys():
        return ax
    return Axis(ax.size, ax.label.substitute(labels))


def python_value_type() -> Type:
    return PY
