"""Expressions to Python source: torch and einops calls, no checks.

Every compound subexpression is parenthesised, so the text needs no precedence
reasoning. Broadcasting by label becomes explicit ``permute`` and ``[:, None]``
indexing from the checker's plans; patterns become einops calls with every size
einops can't infer passed as a keyword.
"""

from __future__ import annotations

from typing import Any

from shapescript.check.resolutions import (
    ArgVal, AxisName, BuiltinCall, ConstArg, ConstName, DefaultArg, DimName, ExprArg,
    ExternCall, FieldName, FnCall, FnName, GenericName, IntIndex, ModelInit, ModelName, ModelNew,
    PyModuleName, PythonCall, SliceIndex, SsModuleName, TupleIndex, AxesIndex, AxisPick,
)
from shapescript.check.result import AssertRes, BroadcastRes, CheckedModule, ConvertRes
from shapescript.check.sizes import Size
from shapescript.check.types import HostType, PyType, TensorType, TupleType
from shapescript.codegen.context import CodegenContext
from shapescript.codegen.keepdim import NO_KEEPDIMS, KeepDims
from shapescript.codegen.names import T, dtype_expr, generic_var, pyname
from shapescript.codegen.pytext import attribute, keyword_arg, literal
from shapescript.syntax import ast

__all__ = ["ExprGen", "T", "dtype_expr", "generic_var", "pyname"]


class ExprGen:
    """Generates Python for one function body (or module-level code)."""

    # The body's reductions kept with ``keepdim=True`` (set per function: keepdim.py).
    keepdims: KeepDims = NO_KEEPDIMS

    def __init__(self, cm: CheckedModule, ctx: CodegenContext) -> None:
        self.cm = cm
        self.ctx = ctx  # the module generator: imports, extern names, device, modes

    # -- helpers ----------------------------------------------------------------
    def size(self, s: Size) -> str:
        """A size as Python: dims are module constants, generics body locals."""
        if s.is_const:
            return str(s.const_value)

        def name_of(v: str) -> str:
            if v in self.cm.env.dims:
                return self.ctx.dim_ref(v)
            if v.startswith("?"):
                raise ValueError(f"unknown size {v} has no value")
            self.ctx.need_generic(v)
            return generic_var(v)

        return s.to_python(name_of)

    def where(self, span: Any) -> str:
        """A ``.ss`` location, as run-time errors start: ``file.ss:line:col``."""
        return self.ctx.specs.where(span)

    def guarded(self, checked: str, plain: str) -> str:
        """A run-time check in a body, under the module's checks mode (``debug``: gone
        under ``python -O``; ``never``: only ``plain``)."""
        mode = getattr(self.ctx, "checks", "always")
        if mode == "never":
            return plain
        if mode == "debug":
            return f"({checked} if __debug__ else {plain})"
        return checked

    def plan(self, code: str, plan: Any, node: Any = None) -> str:
        if plan is None or plan.is_identity:
            return code
        if node is not None and id(node) in self.keepdims.unplanned:
            return code  # a reduction kept with keepdim=True: its axes are in place
        if plan.permute is not None:
            code = f"{code}.permute({', '.join(map(str, plan.permute))})"
        index = plan.index
        if index is not None:
            new = [i for i, keep in enumerate(index) if not keep]
            if len(new) == 1:
                # One new axis: `unsqueeze` is cheaper than indexing with a tuple.
                code = f"{code}.unsqueeze({new[0]})"
            else:
                code = f"{code}[{plan.subscript()}]"
        return code

    # -- dispatch ------------------------------------------------------------------
    def expr(self, e: ast.Expr) -> str:
        return getattr(self, "g_" + type(e).__name__)(e)

    def g_Num(self, e: ast.Num) -> str:
        return literal(e.value)

    def g_Str(self, e: ast.Str) -> str:
        return literal(e.value)

    def g_Bool(self, e: ast.Bool) -> str:
        return "True" if e.value else "False"

    def g_NoneLit(self, e: ast.NoneLit) -> str:
        return "None"

    def g_Name(self, e: ast.Name) -> str:
        match self.cm.res.get(e):
            case DimName(value):
                return self.ctx.dim_ref(e.id) if e.id in self.cm.env.dims else str(value)
            case ConstName(value):  # its value, wherever the const was declared
                return literal(value)
            case GenericName(name):
                self.ctx.need_generic(name)
                return generic_var(name)
            case PyModuleName(module):
                return self.ctx.pymod(e.id, module)
            case FnName(sig):
                return self.ctx.fn_ref(sig)
            case AxisName(position):
                return repr(position)
            case SsModuleName(_, local):
                return self.ctx.ssmod(local)
            case ModelName(info):
                return self.ctx.model_ref(info)
            case _:  # a local, a mode, or a name the checker left unresolved
                return pyname(e.id)

    def g_Attr(self, e: ast.Attr) -> str:
        match self.cm.res.get(e):
            case DimName(value):
                return str(value)
            case ConstName(value):
                return literal(value)
            case FieldName(name):
                return self.ctx.field_ref(self.expr(e.value), name)
            case _:
                return attribute(self.expr(e.value), e.attr)

    def g_TupleExpr(self, e: ast.TupleExpr) -> str:
        items = [self.expr(x) for x in e.items]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"

    def g_BinOp(self, e: ast.BinOp) -> str:
        a, b = self.expr(e.left), self.expr(e.right)
        res = self.cm.res.get(e)
        if e.op == "@":
            if isinstance(res, BroadcastRes):
                a, b = self.plan(a, res.left), self.plan(b, res.right)
            return f"{T}.matmul({a}, {b})"
        if isinstance(res, BroadcastRes):
            a, b = self.plan(a, res.left, e.left), self.plan(b, res.right, e.right)
        op = e.op
        lt, rt = self.cm.types.get(e.left), self.cm.types.get(e.right)
        if op == "/" and isinstance(lt, HostType) and isinstance(rt, HostType):
            return f"({a} / {b})"
        return f"({a} {op} {b})"

    def g_Compare(self, e: ast.Compare) -> str:
        a, b = self.expr(e.left), self.expr(e.right)
        res = self.cm.res.get(e)
        if isinstance(res, BroadcastRes):
            a, b = self.plan(a, res.left), self.plan(b, res.right)
        return f"({a} {e.op} {b})"

    def g_BoolOp(self, e: ast.BoolOp) -> str:
        a, b = self.expr(e.left), self.expr(e.right)
        t = self.cm.types.get(e)
        if isinstance(t, TensorType):
            res = self.cm.res.get(e)
            if isinstance(res, BroadcastRes):
                a, b = self.plan(a, res.left), self.plan(b, res.right)
            return f"({a} {'&' if e.op == 'and' else '|'} {b})"
        return f"({a} {e.op} {b})"

    def g_UnaryOp(self, e: ast.UnaryOp) -> str:
        a = self.expr(e.operand)
        t = self.cm.types.get(e)
        if e.op == "not":
            return f"(~{a})" if isinstance(t, TensorType) else f"(not {a})"
        return f"(-{a})"

    def g_Convert(self, e: ast.Convert) -> str:
        code = self.expr(e.value)
        res: ConvertRes | None = self.cm.res.get(e)
        for step in (res.ops if res else ()):
            if step[0] == "host":
                code = f"{T}.tensor({code}, dtype={dtype_expr(step[1])}, device={self.ctx.device_expr()})"
            elif step[0] == "cast":
                code = f"{code}.to({dtype_expr(step[1])})"
            elif step[0] == "div":
                code = f"({code} / {step[1]})"
            elif step[0] == "affine":
                code = f"({code} * {step[1]!r} + {step[2]!r})"
        return code

    def g_AssertType(self, e: ast.AssertType) -> str:
        res: AssertRes | None = self.cm.res.get(e)
        code = self.expr(e.value)
        if res is None:
            return code
        return self.ctx.assert_check(code, e, res, self)

    def g_Constructor(self, e: ast.Constructor) -> str:
        from shapescript.codegen.builtins import EMITTERS

        return EMITTERS[e.name](self, None, e)

    def g_Index(self, e: ast.Index) -> str:
        if isinstance(e.value, ast.Attr) and isinstance(self.cm.res.get(e), IntIndex):
            field = self.cm.res.get(e.value)
            if isinstance(field, FieldName):
                index = ", ".join(self.index_value(i) for i in e.indices)  # type: ignore[arg-type]
                out = self.ctx.indexed_field_ref(self.expr(e.value.value), field.name, index)
                if out is not None:
                    return out
        base = self.expr(e.value)
        match self.cm.res.get(e):
            case SliceIndex(lo_node, hi_node, check):
                lo, hi = self.index_value(lo_node), self.index_value(hi_node)
                if check:
                    # Bounds the types don't prove: checked, so no slice is silently short.
                    return self.guarded(
                        f"{self.ctx.rt_helper('sliced')}({base}, {lo}, {hi}, {self.where(e.span)!r})",
                        f"{base}[{lo}:{hi}]")
                return f"{base}[{lo}:{hi}]"
            case AxesIndex(picks):
                return self.axes_index(e, base, picks)
            case TupleIndex(position):
                return f"{base}[{position}]"
            case IntIndex(True):
                idx = ", ".join(self.index_value(i) for i in e.indices)  # type: ignore[arg-type]
                tup = idx + ("," if len(e.indices) == 1 else "")
                return self.guarded(
                    f"{self.ctx.rt_helper('picked')}({base}, ({tup}), {self.where(e.span)!r})",
                    f"{base}[{idx}]")
            case _:
                return f"{base}[{', '.join(self.index_value(i) for i in e.indices)}]"  # type: ignore[arg-type]

    def axes_index(self, e: ast.Index, base: str, picks: tuple[AxisPick, ...]) -> str:
        """``x[:, lo:hi, i]``: each pick in place, the axes before it whole."""
        parts = [":"] * (max(p.axis for p in picks) + 1)
        values = []
        for p in picks:
            lo = self.index_value(p.lo)
            hi = self.index_value(p.hi) if p.hi is not None else None
            parts[p.axis] = lo if hi is None else f"{lo}:{hi}"
            values.append(f"({p.axis}, {lo}, {hi})")
        plain = f"{base}[{', '.join(parts)}]"
        if not any(p.check for p in picks):
            return plain
        # Bounds the types don't prove: checked, so no slice is silently short.
        tup = ", ".join(values) + ("," if len(values) == 1 else "")
        return self.guarded(
            f"{self.ctx.rt_helper('cut')}({base}, ({tup}), {self.where(e.span)!r})", plain)

    def index_value(self, i: ast.Expr) -> str:
        code = self.expr(i)
        t = self.cm.types.get(i)
        if isinstance(t, TensorType) and not t.axes and t.dtype != "bool":
            return f"int({code})"
        return code

    def g_Lambda(self, e: ast.Lambda) -> str:
        return f"(lambda {', '.join(map(pyname, e.params))}: {self.expr(e.body)})"

    def g_Call(self, e: ast.Call) -> str:
        match self.cm.res.get(e):
            case FnCall() as res:
                return self.fn_call(res)
            case ExternCall() as res:
                return self.ctx.extern_result_check(self.extern_call(res), e, res, self)
            case BuiltinCall() as res:
                from shapescript.codegen.builtins import gen_builtin

                return gen_builtin(self, res, e)
            case ModelInit(info, seed):
                seed_code = self.expr(seed) if seed is not None else "0"
                return f"{self.ctx.model_ref(info)}.init(seed={seed_code}, device={self.ctx.device_expr()})"
            case ModelNew(info):
                # `M(…)` takes keywords only (the checker's rule), so every name is set.
                kw = ", ".join(keyword_arg(a.name or "", self.expr(a.value)) for a in e.args)
                return f"{self.ctx.model_ref(info)}({kw})"
            case PythonCall() | None:
                return self.python_call(e)
            case res:
                raise AssertionError(f"a call resolved to {res!r}")

    def python_call(self, e: ast.Call) -> str:
        f = self.expr(e.func)
        parts = []
        for a in e.args:
            v = self.expr(a.value)
            parts.append(v if a.name is None else f"{pyname(a.name)}={v}")
        return f"{f}({', '.join(parts)})"

    def argval(self, av: ArgVal, module_ctx: Any = None) -> str:
        match av:
            case ConstArg(value):
                return literal(value)
            case DefaultArg(node):
                return self.ctx.default_value(node)
            case ExprArg(node, wrap):
                code = self.expr(node)
                if wrap is not None and isinstance(self.cm.types.get(node), HostType):
                    dt = wrap if wrap not in ("Float", "Int") else "f32"
                    return f"{T}.as_tensor({code}, dtype={dtype_expr(dt)}, device={self.ctx.device_expr()})"
                return code
        raise AssertionError(f"an argument resolved to {av!r}")

    def fn_call(self, res: FnCall) -> str:
        args = ", ".join(self.argval(a) for a in res.args)
        return f"{self.ctx.unchecked_ref(res.sig)}({args})"

    def extern_call(self, res: ExternCall) -> str:
        parts = [self.argval(a) for a in res.args]
        parts += [keyword_arg(k, self.argval(a)) for k, a in res.kwargs]
        return f"{self.ctx.extern_ref(res.sig)}({', '.join(parts)})"


__all__ = ["ExprGen", "pyname", "generic_var", "dtype_expr", "T", "PyType", "TupleType"]
