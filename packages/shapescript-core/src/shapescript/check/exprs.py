"""Expression inference: "infer the children, then the node" (miniwdl's shape).

Every expression gets a type in ``self.types``; names, calls, operators, indexing,
conversions and assertions also get a resolution record (``check.result``) that code
generation reads. A failing node gets ``ERROR``, which unifies with anything, so one
mistake gives one diagnostic. Calls (``f(…)``) are ``check/call_exprs.py``'s.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any

# packing and training register their built-ins' type rules, which ``e_Call`` dispatches to.
from shapescript.check import division, indexing, ops, packing, training  # noqa: F401
from shapescript.check.axis_index import axis_index, is_axis_index
from shapescript.check.binding import relabel
from shapescript.check.builtins import RULES
from shapescript.check.call_exprs import call_expr
from shapescript.check.calls import CallChecker, host_fits, is_number, literal_int
from shapescript.check.consts import const_type, size_error_parts
from shapescript.check.domains import literal_domain
from shapescript.check.env import (
    BUILTIN_FUNCS,
    CONSTRUCTORS,
    AxisParam,
    FnSig,
    ModelInfo,
    ModuleEnv,
    SizeParam,
    written_type,
)
from shapescript.check.fail import Fail
from shapescript.check.result import AssertRes, ConvertRes
from shapescript.check.resolutions import (
    ConstName, DimName, FieldName, FnName, GenericName, LocalName, ModeName, ModelName,
    NameResolution, PoisonedName, PyAttr, PyModuleName, PythonIndex, SsModuleName, TupleIndex,
)
from shapescript.check.sizes import Size, size_op
from shapescript.check.typeconv import TypeBuilder
from shapescript.check.types import (
    BOOL,
    canonical,
    ERROR,
    FLOAT,
    INT,
    NONE,
    PY,
    STR,
    Axis,
    Domain,
    ErrorType,
    FnRef,
    HostOnlyType,
    HostType,
    ModelType,
    ModuleRef,
    NothingType,
    PyType,
    TensorType,
    TupleType,
    Type,
    is_float,
    is_int,
)
from shapescript.syntax import ast
from shapescript.vocab import HOST_DTYPE
from shapescript import error_codes as ec

if TYPE_CHECKING:
    from shapescript.check.body import BodyChecker

TORCH_PREFIXES = ("torch", "math", "shapescript.rt")


# What an index holds besides expressions (`..`, `...`, `D=…`): no value of their own.
INDEX_ITEMS = (ast.WholeAxis, ast.RestAxes, ast.NamedIndex)

class ExprChecker:
    """Types the expressions of one body: owned by the body's checker (``body``), whose
    scope it reads and whose export sites and diagnostics it adds to. It owns the
    checker of ``fn`` calls (``calls``); the built-ins' type rules are functions of it
    (``check.builtins.RULES``)."""

    def __init__(self, body: BodyChecker) -> None:
        self.body = body
        self.env: ModuleEnv = body.env
        self.sig: FnSig | None = body.sig
        self.source: str = body.source
        self.types = body.types
        self.res = body.res
        self.calls = CallChecker(self)

    # -- entry ---------------------------------------------------------------
    def expr(self, e: ast.Expr, expect: Type | None = None) -> Type:
        """The type of ``e``, recorded in ``types``; ``ERROR`` after reporting a mistake."""
        try:
            t = self._expr(e, expect)
        except Fail as f:
            self.body.fail(f, e)
            t = ERROR
        t = canonical(t, self.body.cm.canon)
        self.types[e] = t
        return t

    def _expr(self, e: ast.Expr, expect: Type | None) -> Type:
        m = getattr(self, "e_" + type(e).__name__)
        return m(e)

    # -- atoms ---------------------------------------------------------------
    def e_Num(self, e: ast.Num) -> Type:
        if isinstance(e.value, int):
            # A tensor holds at most an i64; a Python int beyond it fails in torch.
            if not -2 ** 63 <= e.value < 2 ** 63:
                raise Fail(ec.E0108, "this integer doesn't fit in 64 bits", "out of range",
                           help="integers run from -2**63 to 2**63 - 1; write a float for more")
            return HostType("int", e.value, literal_domain(e.value))
        if math.isinf(e.value):
            raise Fail(ec.E0108, "this number is too large for a float", "out of range",
                       help="floats (f64) reach about 1.8e308")
        return HostType("float", e.value, literal_domain(e.value))

    def e_NumName(self, e: ast.NumName) -> Type:
        return ERROR  # E0104, reported by the parser

    def e_Str(self, e: ast.Str) -> Type:
        return STR

    def e_Bool(self, e: ast.Bool) -> Type:
        return HostType("bool", e.value)

    def e_NoneLit(self, e: ast.NoneLit) -> Type:
        return NONE

    def e_Placeholder(self, e: ast.Placeholder) -> Type:
        # A `_` that no pipe stage consumed: the parser reports every one (E0101), so
        # a program with one never compiles; here it is only an error type.
        return ERROR

    def e_Lambda(self, e: ast.Lambda) -> Type:
        raise Fail(ec.E0503, "a lambda is only allowed as `map`'s argument", "not inside `map`",
                   help="write `C |> map(c => …)`")

    def e_Range(self, e: ast.Range) -> Type:
        raise Fail(ec.E0410, "a range is only allowed in `for` and slices", "a range here",
                   help="write `for i in a..b:` or `x[a..b]`")

    def e_NumNameOrErr(self, e: Any) -> Type:
        return ERROR

    def e_Name(self, e: ast.Name) -> Type:
        t, res = self.lookup(e.id, e)
        self.res[e] = res
        if isinstance(t, FnRef):
            raise Fail(ec.E0503, f"`{e.id}` is a function, used here as a value", "a function",
                       help=f"call it: `{e.id}(…)`, or use it as a pipe stage: `x |> {e.id}`")
        if isinstance(res, ModelName):
            raise Fail(ec.E0503, f"`{e.id}` is a model type, used here as a value", "a model",
                       help=f"make one with `{e.id}.init(seed=0)`")
        return t

    def lookup(self, name: str, node: ast.Expr) -> tuple[Type, NameResolution]:
        var = self.body.scope.get(name)
        if var is not None:
            return var.type, LocalName()
        if name in self.body.scope.dead:
            raise Fail(ec.E0802, f"`{name}` is out of scope here",
                       "bound only in a loop body or in some branches",
                       help="bind it before the `if` or loop, or in every branch")
        if self.sig is not None and name in self.sig.generics:
            self.body.used_generics.add(name)
            return HostType("int", None, "Pos"), GenericName(name)
        v = self.env.dim_size(name)
        if v is not None:
            return HostType("int", v, "Pos" if v > 0 else "Zero"), DimName(v)
        c = self.env.const_value(name)
        if c is not None:
            return const_type(c), ConstName(c)
        sig = self.env.fn(name)
        if sig is not None:
            self.body.note_call(sig)
            return FnRef(name, sig.file), FnName(sig)
        model = self.env.model(name)
        if model is not None:
            return ModelType(model.name, model.file), ModelName(model)
        if name in self.env.pymods:
            self.body.python_use(node)
            return PY, PyModuleName(self.env.pymods[name])
        if name in self.env.ssmods:
            return ModuleRef(name), SsModuleName(self.env.ssmods[name], name)
        if name == "Train":
            return HostOnlyType("mode"), ModeName(name)
        if name in self.env.poisoned:
            return ERROR, PoisonedName()
        if name in BUILTIN_FUNCS or name in CONSTRUCTORS:
            raise Fail(ec.E0503, f"`{name}` is a built-in function, used here as a value",
                       "a built-in", help=f"call it: `{name}(…)`")
        raise Fail(ec.E0201, f"unknown name `{name}`", "not found in this scope",
                   help=self.similar_name(name))

    def similar_name(self, name: str) -> str | None:
        """A help naming a known name spelt like ``name``, if there is one."""
        import difflib

        env = self.env
        known: set[str] = set(self.body.scope.vars) | set(env.dims) | set(env.fns) | set(env.models)
        known |= set(env.imported) | set(env.pymods) | set(env.ssmods) | BUILTIN_FUNCS
        pre = env.prelude
        while pre is not None:  # nn.ss, then prelude.ss
            known |= set(pre.fns)
            pre = pre.prelude
        if self.sig is not None:
            known |= set(self.sig.generics)
        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
        return f"a name with a similar spelling exists: `{close[0]}`" if close else None

    def e_Attr(self, e: ast.Attr) -> Type:
        # Dotted names that aren't values: module members.
        if isinstance(e.value, ast.Name) and self.body.scope.get(e.value.id) is None:
            base = e.value.id
            if base in self.env.ssmods:
                sub = self.env.ssmods[base]
                self.res[e.value] = SsModuleName(sub, base)
                if not sub.public(e.attr):
                    raise Fail(ec.E0205, f"`{e.attr}` is not public in `{base}`", "no such public name")
                if e.attr in sub.dims:
                    v = sub.dims[e.attr]
                    self.res[e] = DimName(v)
                    return HostType("int", v, "Pos")
                if e.attr in sub.consts:
                    c = sub.consts[e.attr]
                    self.res[e] = ConstName(c)
                    return const_type(c)
                if e.attr in sub.poisoned:
                    return ERROR  # its declaration failed, already reported
                if e.attr in sub.fns:
                    raise Fail(ec.E0503, f"`{base}.{e.attr}` is a function, used here as a value",
                               "a function", help=f"call it: `{base}.{e.attr}(…)`")
                raise Fail(ec.E0503, f"`{base}.{e.attr}` is not a value", "a type")
        t = self.expr(e.value)
        if isinstance(t, ModelType):
            info = self.model_info(t)
            f = info.fields.get(e.attr) if info else None
            if f is None:
                if info is not None and e.attr in info.failed:
                    return ERROR  # its declaration failed, already reported
                raise Fail(ec.E0901, f"model `{t.name}` has no field `{e.attr}`", "unknown field",
                           help=("fields: " + ", ".join(f"`{n}`" for n in info.fields))
                           if info and info.fields else None)
            self.res[e] = FieldName(e.attr)
            if info is not None and info.env is not None and info.env is not self.env:
                return relabel(f.type, self.env.labels_from(info.env))
            return f.type
        if isinstance(t, (PyType, ErrorType)):
            self.res[e] = PyAttr()
            return t
        raise Fail(ec.E0901, f"`{t}` has no field `{e.attr}`", "not a model or Python value")

    def model_info(self, t: ModelType) -> ModelInfo | None:
        if t.module == self.env.path:
            return self.env.models.get(t.name)
        found = self.env.model(t.name)
        if found is not None:
            return found
        for sub in self.env.ssmods.values():
            if sub.path == t.module:
                return sub.models.get(t.name)
        return None

    def e_Call(self, e: ast.Call) -> Type:
        return call_expr(self, e)

    def args_only(self, e: ast.Call) -> Type:
        """Type a call's arguments only (its callee is a mistake, reported): ``ERROR``."""
        for a in e.args:
            if not isinstance(a.value, ast.Lambda):
                self.expr(a.value)
        return ERROR

    def e_TupleExpr(self, e: ast.TupleExpr) -> Type:
        return TupleType(tuple(self.expr(x) for x in e.items))

    # -- operators -------------------------------------------------------------
    def e_BinOp(self, e: ast.BinOp) -> Type:
        a = self.expr(e.left)
        b = self.expr(e.right)
        return self.binop(e.op, a, b, e)

    def binop(self, op: str, a: Type, b: Type, node: ast.Expr) -> Type:
        if isinstance(a, ErrorType) or isinstance(b, ErrorType):
            return ERROR
        if isinstance(a, PyType) or isinstance(b, PyType):
            return PY
        if op == "@":
            return self.matmul(a, b, node)
        if op in ("/", "//", "%") and isinstance(b, HostType):
            division.check_divisor(self, op, a, b, node)
        if isinstance(a, HostType) and isinstance(b, HostType):
            return ops.host_arith(op, a, b)
        self.elementwise_operands(op, a, b)
        t, plan = ops.elementwise(op, a, b, self.body.role_of)
        if plan is not None:
            self.res[node] = plan
        return t

    def elementwise_operands(self, op: str, a: Type, b: Type) -> None:
        """E0410 unless ``a`` and ``b`` are tensors or host numbers (not tuples, models …),
        the operands ``ops.elementwise`` takes."""
        if not isinstance(a, (TensorType, HostType)) or not isinstance(b, (TensorType, HostType)):
            raise Fail(ec.E0410, f"`{op}` needs numbers or tensors, not `{a}` and `{b}`", "")
        for t in (a, b):
            if isinstance(t, HostType) and t.name not in ("int", "float", "bool"):
                raise Fail(ec.E0410, f"`{op}` needs numbers or tensors, not `{t}`", f"this is `{t}`")

    def matmul(self, a: Type, b: Type, node: ast.Expr) -> Type:
        if not isinstance(a, TensorType) or not isinstance(b, TensorType):
            raise Fail(ec.E0410, "`@` needs two tensors", f"`{a}` @ `{b}`")
        t, plan = ops.matmul(a, b, self.body.clash)
        self.res[node] = plan
        return t

    def e_Compare(self, e: ast.Compare) -> Type:
        a = self.expr(e.left)
        b = self.expr(e.right)
        if isinstance(a, ErrorType) or isinstance(b, ErrorType):
            return ERROR
        if isinstance(a, PyType) or isinstance(b, PyType):
            return PY
        if isinstance(a, HostType) and isinstance(b, HostType):
            return BOOL
        self.elementwise_operands(e.op, a, b)
        t, plan = ops.elementwise(e.op, a, b, self.body.role_of)
        if plan is not None:
            self.res[e] = plan
        return t

    def e_BoolOp(self, e: ast.BoolOp) -> Type:
        a = self.expr(e.left)
        b = self.expr(e.right)
        if isinstance(a, ErrorType) or isinstance(b, ErrorType):
            return ERROR
        if isinstance(a, PyType) or isinstance(b, PyType):
            return PY
        if isinstance(a, HostType) and isinstance(b, HostType):
            if a.name != "bool" or b.name != "bool":
                raise Fail(ec.E0804, f"`{e.op}` needs conditions, not `{a}` and `{b}`", "")
            return BOOL
        for side in (a, b):
            if isinstance(side, TensorType) and side.dtype != "bool":
                raise Fail(ec.E0804, f"`{e.op}` needs masks, not `{side}`", f"this is `{side}`",
                           help="compare it first, e.g. `x > 0`")
            if not isinstance(side, TensorType) and not (isinstance(side, HostType)
                                                         and side.name == "bool"):
                raise Fail(ec.E0804, f"`{e.op}` needs masks or bools, not `{side}`", "")
        t, plan = ops.elementwise(e.op, a, b, self.body.role_of)
        if plan is not None:
            self.res[e] = plan
        return t

    def e_UnaryOp(self, e: ast.UnaryOp) -> Type:
        a = self.expr(e.operand)
        if isinstance(a, (ErrorType, PyType)):
            return a
        if e.op == "not":
            if isinstance(a, HostType):
                if a.name != "bool":
                    raise Fail(ec.E0804, f"`not` needs a bool, not `{a}`", f"this is `{a}`",
                               span=e.operand.span, help="compare it first, e.g. `k != 0`")
                return BOOL
            if isinstance(a, TensorType) and a.dtype == "bool":
                return a
            raise Fail(ec.E0804, f"`not` needs a mask, not `{a}`", f"this is `{a}`")
        if isinstance(a, HostType):
            if a.name not in ("int", "float"):
                raise Fail(ec.E0410, f"`-` needs a number, not `{a}`", "")
            v = -a.value if a.value is not None else None
            return HostType(a.name, v, literal_domain(v) if v is not None else "Real")
        if isinstance(a, TensorType):
            return ops.negate(a)
        raise Fail(ec.E0410, f"`-` needs a number or tensor, not `{a}`", "")

    # -- conversions and assertions ---------------------------------------------
    def e_Convert(self, e: ast.Convert) -> Type:
        a = self.expr(e.value)
        if isinstance(a, ErrorType):
            return ERROR
        tt = e.target
        if tt.shape is None and tt.alias is None and tt.dtype is None and tt.domain is None:
            return ERROR  # an empty target: the parser reported what it couldn't read
        if isinstance(a, PyType):
            raise Fail(ec.E0413, "the shape of this Python value is unknown", "converted with `to`",
                       span=e.value.span, help="assert its type with `as` first")
        if isinstance(a, HostType):
            if a.name not in ("int", "float", "bool"):
                raise Fail(ec.E0702, f"`to` converts tensors and host numbers, not `{a}`",
                           f"this is `{a}`")
            if e.target.shape is not None \
                    or e.target.alias is not None or e.target.domain is not None or e.target.dtype is None:
                raise Fail(ec.E0702, f"a host `{a}` converts only to a dtype", f"this is `{a}`",
                           help="write a dtype alone, as in `(i to f32)`")
            # A host number `to` a dtype is a `[]` tensor of that dtype.
            dt = e.target.dtype
            src = TensorType((), HOST_DTYPE[a.name],
                             ops.host_domain(a))
            t, _ = ops.convert(src, e.target)
            self.res[e] = ConvertRes((("host", dt),))
            return t
        if not isinstance(a, TensorType):
            raise Fail(ec.E0702, f"can't convert `{a}`", "")
        t, steps = ops.convert(a, e.target)
        self.res[e] = ConvertRes(tuple(steps))
        return t

    def e_AssertType(self, e: ast.AssertType) -> Type:
        a = self.expr(e.value)
        fresh = f"#{self.body.next_id()}"
        tb = TypeBuilder(self.env, self.body.report, generics=set(self.sig.generics if self.sig else ()),
                         new_generics=False, fresh=fresh, renames=self.local_renames())
        target = tb.type(e.type)
        if tb.failed or isinstance(target, ErrorType):
            return ERROR
        where = f"{os.path.basename(e.span.file)}:{e.span.line}:{e.span.col}"
        written = self.source[e.type.span.start:e.type.span.end]
        if isinstance(a, ErrorType):
            return ERROR if not isinstance(target, TensorType) else target
        on_python = isinstance(a, PyType)
        if on_python:
            self.body.as_python(e)
        if isinstance(target, TensorType):
            if isinstance(a, TensorType):
                ops.check_assert(a, target)
            elif not on_python:
                raise Fail(ec.E0703, f"`as` can't make `{a}` a tensor", f"this is `{a}`",
                           help="`as` asserts; it never converts")
        elif isinstance(target, HostType):
            if not on_python and not (isinstance(a, HostType) and host_fits(a, target)):
                raise Fail(ec.E0703, f"`as` can't make `{a}` a `{target}`", f"this is `{a}`",
                           help="`as` asserts; it never converts")
        elif isinstance(target, (SizeParam, AxisParam)):
            raise Fail(ec.E0504, f"`{target}` is only for `extern fn` parameters", "not a value's type",
                       span=e.type.span)
        self.res[e] = AssertRes(target, on_python, written, where,
                                    written_type(e.type, self.env, self.source))
        return target

    # -- constructors -------------------------------------------------------------
    def e_Constructor(self, e: ast.Constructor) -> Type:
        return RULES[e.name](self, e.name, e)

    def type_builder(self, context: str = "annotation") -> TypeBuilder:
        return TypeBuilder(self.env, self.body.report,
                           generics=set(self.sig.generics if self.sig else ()), new_generics=False,
                           context=context, renames=self.local_renames())

    def local_renames(self) -> dict[str, tuple[Size, Size]] | None:
        """The body's local roles as sizes a written type may name (`causal[n t]`)."""
        sizes = self.body.local_sizes
        return {n: (s, Size.var(n)) for n, s in sizes.items()} if sizes else None

    # -- indexing ------------------------------------------------------------------
    def e_Index(self, e: ast.Index) -> Type:
        base = self.expr(e.value)
        if isinstance(base, ErrorType):
            for i in e.indices:
                self.expr(i) if not isinstance(i, (ast.Range, *INDEX_ITEMS)) else None
            return ERROR
        if isinstance(base, PyType):
            if is_axis_index(e.indices):
                raise Fail(ec.E0413, "a Python value is indexed by axis only once it has a type",
                           "a Python value", span=e.value.span,
                           help="assert its type with `as`, then index it")
            for i in e.indices:
                if isinstance(i, ast.Range):
                    self.expr(i.lo), self.expr(i.hi)
                else:
                    self.expr(i)  # type: ignore[arg-type]
            self.res[e] = PythonIndex()
            return PY
        if isinstance(base, TensorType) and is_axis_index(e.indices):
            return axis_index(self, base, e)
        if isinstance(base, TupleType):
            k = literal_int(e.indices[0]) if len(e.indices) == 1 else None  # type: ignore[arg-type]
            if k is None:
                for i in e.indices:
                    if not isinstance(i, (ast.Range, *INDEX_ITEMS)):
                        self.expr(i)
                raise Fail(ec.E0406, "a tuple is indexed by a literal number", "not a literal",
                           span=e.indices[0].span if e.indices else e.span,
                           help="write the item's position, e.g. `t[0]`, or unpack it: `a, b = t`")
            n = len(base.items)
            if not -n <= k < n:
                raise Fail(ec.E0406, f"index {k} is out of bounds for a tuple of {n}", "out of bounds",
                           span=e.indices[0].span)
            self.types[e.indices[0]] = INT
            self.res[e] = TupleIndex(k % n)
            return base.items[k]
        if not isinstance(base, TensorType):
            raise Fail(ec.E0410, f"`{base}` can't be indexed", f"this is `{base}`")
        return indexing.index(self, base, e)

    def static_size(self, e: ast.Expr) -> int:
        """A ``Size[K]`` argument: literals and dims only (E1003)."""
        s = self.expr_size(e, allow_generics=False)
        if s is None:
            self.const_not_size(e)
        if (s is None or not s.is_const) and isinstance(e, ast.NumName):
            raise Fail.reported()  # `2x` outside a size: the parser reported it (E0104)
        if s is None or not s.is_const:
            raise Fail(ec.E1003, "a `Size` argument must be known before the program runs",
                       "not a static size", span=e.span, help="use a literal or a dim")
        return s.const_value  # type: ignore[return-value]

    def expr_size(self, e: ast.Expr, allow_generics: bool = True) -> Size | None:
        """An expression read as a size (dims → values, generics symbolic)."""
        if isinstance(e, ast.Num) and isinstance(e.value, int):
            return Size.const(e.value)
        if isinstance(e, ast.Name):
            v = self.env.dim_size(e.id)
            if v is not None:
                self.res[e] = DimName(v)
                self.types[e] = HostType("int", v, "Pos")
                return Size.const(v)
            if allow_generics and self.sig is not None and e.id in self.sig.generics:
                self.body.used_generics.add(e.id)
                self.res[e] = GenericName(e.id)
                self.types[e] = HostType("int", None, "Pos")
                return Size.var(e.id)
            return None
        if isinstance(e, ast.NumName):
            inner = self.expr_size(ast.Name(e.name, e.span), allow_generics)
            return None if inner is None else inner * e.value
        if isinstance(e, ast.BinOp) and e.op in ("+", "-", "*", "/", "//"):
            a = self.expr_size(e.left, allow_generics)
            b = self.expr_size(e.right, allow_generics)
            return None if a is None or b is None else size_op(e.op, a, b)
        return None

    def const_not_size(self, e: ast.Expr) -> None:
        """Where a size is required and ``e`` isn't one: E0306 when ``e`` uses a const
        (a host value, never a size), so the message says why."""
        if isinstance(e, ast.BinOp):
            self.const_not_size(e.left)
            self.const_not_size(e.right)
            return
        name, module = None, None
        if isinstance(e, ast.Name) and self.body.scope.get(e.id) is None:
            name = e.id
        elif isinstance(e, ast.Attr) and isinstance(e.value, ast.Name) \
                and e.value.id in self.env.ssmods and self.body.scope.get(e.value.id) is None:
            name, module = e.attr, e.value.id
        if name is not None and self.env.is_const(name, module):
            msg, label, help_ = size_error_parts(f"{module}.{name}" if module else name,
                                                 self.env.const_value(name, module))
            raise Fail(ec.E0306, msg, label, help=help_, span=e.span)

    def expect_fits(self, t: Type, want: Type, node: ast.Expr, what: str) -> None:
        if isinstance(t, ErrorType):
            return
        if isinstance(want, TensorType):
            if isinstance(t, PyType):
                raise Fail(ec.E0413, "the shape of this Python value is unknown",
                           f"{what} is `{want}`", span=node.span, help=f"assert its shape with `as {want}`")
            if isinstance(t, HostType) and is_number(t) and not want.axes:
                return
            if not isinstance(t, TensorType):
                raise Fail(ec.E0410, f"{what} is a tensor, not `{t}`", f"this is `{t}`", span=node.span)
            ops.check_fits(t, want, what, node, self.body.clash)
            return
        if isinstance(want, HostType):
            if isinstance(t, TensorType):
                raise Fail(ec.E0410, f"{what} is `{want}`, not a tensor", f"this is `{t}`", span=node.span)
            if not host_fits(t, want):
                raise Fail(ec.E0404, f"{what} is `{want}`, not `{t}`", f"this is `{t}`", span=node.span)
            return
        if isinstance(want, ModelType):
            if not (isinstance(t, ModelType) and t.name == want.name and t.grads == want.grads):
                raise Fail(ec.E0404, f"{what} is `{want}`, not `{t}`", f"this is `{t}`", span=node.span)
            return
        if isinstance(want, TupleType):
            if isinstance(t, PyType):
                raise Fail(ec.E0413, "the shape of this Python value is unknown",
                           f"{what} is `{want}`", span=node.span, help=f"assert its type with `as {want}`")
            if not isinstance(t, TupleType) or len(t.items) != len(want.items):
                raise Fail(ec.E0404, f"{what} is `{want}`, not `{t}`", f"this is `{t}`", span=node.span)
            for i, (x, y) in enumerate(zip(t.items, want.items)):
                sub = node.items[i] if isinstance(node, ast.TupleExpr) else node
                self.expect_fits(x, y, sub, f"{what}, item {i}")


__all__ = ["ExprChecker", "TORCH_PREFIXES", "FLOAT", "INT", "Axis", "Domain",
           "is_float", "is_int", "NothingType", "TupleType"]
