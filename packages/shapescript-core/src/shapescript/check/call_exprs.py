"""Calls in expressions: what a called name is (a built-in, a function of this module or
of an imported one, a model's literal or ``init``, a Python module), and the checks of
model construction. A signature's call itself is ``check/calls.py``'s ``CallChecker``."""

from __future__ import annotations

from shapescript.check.env import BUILTIN_FUNCS, CONSTRUCTORS, ModelInfo, ModuleEnv
from shapescript.check.fail import Fail
from shapescript.check.resolutions import (
    FnName, ModelInit, ModelNew, PyModuleName, PythonCall, SsModuleName,
)
from shapescript.check.types import ERROR, PY, ErrorType, HostType, PyType, Type
from shapescript.syntax import ast

__all__ = ["CallExprMixin"]


class CallExprMixin:
    """Checking ``f(…)`` expressions; mixed into ``BodyChecker`` next to ``ExprMixin``."""

    env: ModuleEnv

    def e_Call(self, e: ast.Call) -> Type:
        f = e.func
        if isinstance(f, ast.Name) and self.scope.get(f.id) is None:
            name = f.id
            if name in BUILTIN_FUNCS:
                return self.builtin(name, e)
            sig = self.env.fn(name)
            if sig is not None:
                self.res[id(f)] = FnName(sig)
                self.note_call(sig)
                return self.calls.call(sig, e)
            model = self.env.model(name)
            if model is not None:
                return self.model_literal(model, e)
            if name in self.env.pymods:
                self.res[id(f)] = PyModuleName(self.env.pymods[name])
                self.python_use(f)
                return self.python_call(e)
            if name in self.env.poisoned:
                return self.args_only(e)
            if name in CONSTRUCTORS:
                raise Fail("E0503", f"`{name}` is a constructor, not a function",
                           "called like a function",
                           help=f"write its axes in brackets, e.g. `{name}[n D]`")
        if isinstance(f, ast.Attr) and isinstance(f.value, ast.Name) and self.scope.get(f.value.id) is None:
            base = f.value.id
            if base in self.env.ssmods:
                sub = self.env.ssmods[base]
                self.res[id(f.value)] = SsModuleName(sub, base)
                if not sub.public(f.attr) or f.attr not in sub.fns:
                    raise Fail("E0205", f"`{f.attr}` is not a public function of `{base}`",
                               "no such public function", span=f.span,
                               help="public names are top-level names not starting with `_`"
                               if f.attr.startswith("_") and f.attr in sub.fns else None)
                sig = sub.fns[f.attr]
                self.res[id(f)] = FnName(sig)
                self.note_call(sig)
                return self.calls.call(sig, e)
            model = self.env.model(base)
            if model is not None and f.attr == "init":
                return self.model_init(model, e)
        # `module.Model.init(seed=…)`: a model of an imported module.
        if (isinstance(f, ast.Attr) and f.attr == "init" and isinstance(f.value, ast.Attr)
                and isinstance(f.value.value, ast.Name) and self.scope.get(f.value.value.id) is None
                and f.value.value.id in self.env.ssmods):
            model = self.env.model(f"{f.value.value.id}.{f.value.attr}")
            if model is not None:
                return self.model_init(model, e)
        ft = self.expr(f)
        if isinstance(ft, (PyType, ErrorType)):
            return self.python_call(e) if isinstance(ft, PyType) else self.args_only(e)
        raise Fail("E0503", f"`{self.source[f.span.start:f.span.end]}` is not callable",
                   f"this is `{ft}`", span=f.span)

    def args_only(self, e: ast.Call) -> Type:
        for a in e.args:
            if not isinstance(a.value, ast.Lambda):
                self.expr(a.value)
        return ERROR

    def python_call(self, e: ast.Call) -> Type:
        for a in e.args:
            self.expr(a.value)
        self.res[id(e)] = PythonCall()
        return PY

    def model_literal(self, model: ModelInfo, e: ast.Call) -> Type:
        args = {a.name: a for a in e.args}
        if None in args:
            raise Fail("E0501", f"`{model.name}(…)` takes its fields by name", "a field without its name",
                       help=f"write `{model.name}(" + ", ".join(f"{n}=…" for n in model.fields) + ")`")
        for a in e.args:
            fi = model.fields.get(a.name or "")
            if fi is None and a.name in model.failed:
                self.expr(a.value)
                continue
            if fi is None:
                raise Fail("E0901", f"model `{model.name}` has no field `{a.name}`", "unknown field",
                           span=a.span)
            t = self.expr(a.value)
            try:
                self.expect_fits(t, fi.type, a.value, f"field `{a.name}`")
            except Fail as err:
                raise Fail("E0903", f"field `{model.name}.{a.name}` is `{fi.type}`, not `{t}`",
                           f"this is `{t}`", span=a.value.span,
                           help=err.help or "a field keeps its declared type") from None
        missing = [n for n in model.fields if n not in args]
        if missing:
            raise Fail("E0501", f"`{model.name}(…)` is missing " + ", ".join(f"`{m}`" for m in missing),
                       "every field is required", help="give each field by name")
        self.res[id(e)] = ModelNew(model)
        self.host_only(e, "a model")
        return model.type

    def model_init(self, model: ModelInfo, e: ast.Call) -> Type:
        seed = None
        for a in e.args:
            if a.name not in (None, "seed"):
                raise Fail("E0502", f"`init` has no parameter `{a.name}`", "", span=a.span)
            t = self.expr(a.value)
            if not (isinstance(t, (HostType, PyType, ErrorType)) and getattr(t, "name", "int") in ("int",)):
                raise Fail("E0410", "`seed` is an int", f"this is `{t}`", span=a.span)
            seed = a.value
        self.res[id(e)] = ModelInit(model, seed)
        self.host_only(e, "a model")
        return model.type
