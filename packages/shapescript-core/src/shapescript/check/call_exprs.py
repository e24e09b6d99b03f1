"""Calls in expressions: what a called name is (a built-in, a function of this module or
of an imported one, a model's literal or ``init``, a Python module), and the checks of
model construction. A signature's call itself is ``check/calls.py``'s ``CallChecker``.
Each is a function of the body's expression checker (``ck``), whose ``e_Call`` is
``call_expr``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check.builtins import builtin
from shapescript.check.env import BUILTIN_FUNCS, CONSTRUCTORS, ModelInfo
from shapescript.check.fail import Fail
from shapescript.check.resolutions import (
    FnName, ModelInit, ModelNew, PyModuleName, PythonCall, SsModuleName,
)
from shapescript.check.types import PY, ErrorType, HostType, PyType, Type
from shapescript.syntax import ast
from shapescript import error_codes as ec

if TYPE_CHECKING:
    from shapescript.check.exprs import ExprChecker

__all__ = ["call_expr"]


def call_expr(ck: ExprChecker, e: ast.Call) -> Type:
    """The type of ``f(…)``, by what ``f`` names."""
    f = e.func
    if isinstance(f, ast.Name) and ck.body.scope.get(f.id) is None:
        name = f.id
        if name in BUILTIN_FUNCS:
            return builtin(ck, name, e)
        sig = ck.env.fn(name)
        if sig is not None:
            ck.res[f] = FnName(sig)
            ck.body.note_call(sig)
            return ck.calls.call(sig, e)
        model = ck.env.model(name)
        if model is not None:
            return model_literal(ck, model, e)
        if name in ck.env.pymods:
            ck.res[f] = PyModuleName(ck.env.pymods[name])
            ck.body.python_use(f)
            return python_call(ck, e)
        if name in ck.env.poisoned:
            return ck.args_only(e)
        if name in CONSTRUCTORS:
            raise Fail(ec.E0503, f"`{name}` is a constructor, not a function",
                       "called like a function",
                       help=f"write its axes in brackets, e.g. `{name}[n D]`")
    if isinstance(f, ast.Attr) and isinstance(f.value, ast.Name) and ck.body.scope.get(f.value.id) is None:
        base = f.value.id
        if base in ck.env.ssmods:
            sub = ck.env.ssmods[base]
            ck.res[f.value] = SsModuleName(sub, base)
            if not sub.public(f.attr) or f.attr not in sub.fns:
                raise Fail(ec.E0205, f"`{f.attr}` is not a public function of `{base}`",
                           "no such public function", span=f.span,
                           help="public names are top-level names not starting with `_`"
                           if f.attr.startswith("_") and f.attr in sub.fns else None)
            sig = sub.fns[f.attr]
            ck.res[f] = FnName(sig)
            ck.body.note_call(sig)
            return ck.calls.call(sig, e)
        model = ck.env.model(base)
        if model is not None and f.attr == "init":
            return model_init(ck, model, e)
    # `module.Model.init(seed=…)`: a model of an imported module.
    if (isinstance(f, ast.Attr) and f.attr == "init" and isinstance(f.value, ast.Attr)
            and isinstance(f.value.value, ast.Name) and ck.body.scope.get(f.value.value.id) is None
            and f.value.value.id in ck.env.ssmods):
        model = ck.env.model(f"{f.value.value.id}.{f.value.attr}")
        if model is not None:
            return model_init(ck, model, e)
    ft = ck.expr(f)
    if isinstance(ft, (PyType, ErrorType)):
        return python_call(ck, e) if isinstance(ft, PyType) else ck.args_only(e)
    raise Fail(ec.E0503, f"`{ck.source[f.span.start:f.span.end]}` is not callable",
               f"this is `{ft}`", span=f.span)


def python_call(ck: ExprChecker, e: ast.Call) -> Type:
    for a in e.args:
        ck.expr(a.value)
    ck.res[e] = PythonCall()
    return PY


def model_literal(ck: ExprChecker, model: ModelInfo, e: ast.Call) -> Type:
    args = {a.name: a for a in e.args}
    if None in args:
        raise Fail(ec.E0501, f"`{model.name}(…)` takes its fields by name", "a field without its name",
                   help=f"write `{model.name}(" + ", ".join(f"{n}=…" for n in model.fields) + ")`")
    for a in e.args:
        fi = model.fields.get(a.name or "")
        if fi is None and a.name in model.failed:
            ck.expr(a.value)
            continue
        if fi is None:
            raise Fail(ec.E0901, f"model `{model.name}` has no field `{a.name}`", "unknown field",
                       span=a.span)
        t = ck.expr(a.value)
        try:
            ck.expect_fits(t, fi.type, a.value, f"field `{a.name}`")
        except Fail as err:
            raise Fail(ec.E0903, f"field `{model.name}.{a.name}` is `{fi.type}`, not `{t}`",
                       f"this is `{t}`", span=a.value.span,
                       help=err.help or "a field keeps its declared type") from None
    missing = [n for n in model.fields if n not in args]
    if missing:
        raise Fail(ec.E0501, f"`{model.name}(…)` is missing " + ", ".join(f"`{m}`" for m in missing),
                   "every field is required", help="give each field by name")
    ck.res[e] = ModelNew(model)
    ck.body.host_only(e, "a model")
    return model.type


def model_init(ck: ExprChecker, model: ModelInfo, e: ast.Call) -> Type:
    seed = None
    for a in e.args:
        if a.name not in (None, "seed"):
            raise Fail(ec.E0502, f"`init` has no parameter `{a.name}`", "", span=a.span)
        t = ck.expr(a.value)
        if not (isinstance(t, (HostType, PyType, ErrorType)) and getattr(t, "name", "int") in ("int",)):
            raise Fail(ec.E0410, "`seed` is an int", f"this is `{t}`", span=a.span)
        seed = a.value
    ck.res[e] = ModelInit(model, seed)
    ck.body.host_only(e, "a model")
    return model.type

