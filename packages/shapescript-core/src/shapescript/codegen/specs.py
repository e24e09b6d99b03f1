"""Run-time specs of signatures and ``as`` types, as Python source for the runtime.

A checked entry verifies its arguments against one ``TensorSpec``/``HostSpec``/
``ModelSpec`` per parameter (``shapescript.rt.specs``); this module writes those specs
from the checker's types, with the sizes as written for the messages.
"""

from __future__ import annotations

import os
from typing import Any

from shapescript.check.env import AxisParam, FnSig, SizeParam, Written
from shapescript.check.result import AssertRes, CheckedModule
from shapescript.check.sizes import Size
from shapescript.check.types import Domain, HostType, ModelType, TensorType, TupleType, Type
from shapescript.syntax import ast
from shapescript.vocab import PLAIN_DOMAINS

HOST_PY = {"int": "int", "float": "float", "bool": "bool", "str": "str"}


def axis_texts(t: TensorType, shape: Written | None) -> list[str]:
    """Each axis of ``t`` as the source writes it (``shape``), or by its label when the
    written axes don't match it one for one."""
    if shape is not None and shape.axes is not None and len(shape.axes) == len(t.axes):
        return list(shape.axes)
    return [str(a.label) for a in t.axes]


class SpecBuilder:
    def __init__(self, cm: CheckedModule, ctx: Any) -> None:
        self.cm = cm
        self.ctx = ctx
        self.base = os.path.basename(cm.env.path)

    def where(self, span: Any) -> str:
        return f"{self.base}:{span.line}:{span.col}"

    # -- axes --------------------------------------------------------------------------
    def axis(self, size: Size, text: str, variadic: bool) -> str:
        if variadic:
            return "'...'"
        if size.is_const:
            return str(size.const_value)
        v = size.var_name
        if v is not None:
            if v.startswith("?"):
                return repr(("?", v.split("#")[0].lstrip("?")))
            return repr(v)
        lin = size.linear()
        if lin is not None and not lin[0].startswith("?"):
            return repr(("lin", lin[0], lin[1], lin[2], text))
        code = size.to_python(lambda n: f"_e[{n!r}]")
        return f"('expr', {text!r}, lambda _e: {code})"

    def tensor_spec(self, name: str, where: str, written: str, t: TensorType,
                    shape: Written | None, optional: bool = False) -> str:
        """The spec of a tensor of type ``t``; ``shape``: its type as written, whose axes'
        texts the messages show (else each axis's label)."""
        texts = axis_texts(t, shape)
        axes = [self.axis(a.size, tx, a.variadic) for a, tx in zip(t.axes, texts)]
        axes_src = "(" + ", ".join(axes) + ("," if len(axes) == 1 else "") + ")"
        domain = self.domain_spec(t)
        opt = ", optional=True" if optional else ""
        return (f"_ss_rt.TensorSpec({name!r}, {where!r}, {written!r}, {axes_src}, "
                f"{t.dtype!r}, {domain}{opt})")

    def domain_spec(self, t: TensorType) -> str:
        d = t.domain
        if d.kind in PLAIN_DOMAINS:
            return "None"
        if d.over is not None:
            pos = next((i for i, a in enumerate(t.axes) if a.label == d.over), None)
            vi = next((i for i, a in enumerate(t.axes) if a.variadic), None)
            if pos is None:
                return "None"
            if vi is not None and pos > vi:
                pos = pos - len(t.axes)
            return f"_ss_rt.DomainSpec({d.kind!r}, over={pos}, label={str(d.over)!r})"
        if d.kind == "Index" and d.index is not None:
            s = d.index
            if s.is_const:
                idx = str(s.const_value)
            elif s.var_name is not None:
                idx = repr(s.var_name)
            else:
                idx = f"lambda _e: {s.to_python(lambda n: f'_e[{n!r}]')}"
            return f"_ss_rt.DomainSpec('Index', index={idx}, text={index_text(d)!r})"
        return repr(d.kind)

    def param_spec(self, sig: FnSig, i: int) -> str | None:
        p = sig.params[i]
        decl_p = sig.decl.params[i]
        t = p.type
        where = self.where(decl_p.span)
        optional = p.default is not None and isinstance(p.default, ast.NoneLit)
        if t is None:
            dt = self.cm.types.get(p.default) if p.default is not None else None
            t = dt if isinstance(dt, HostType) else None
            if t is None:
                return None
        if isinstance(t, TensorType):
            return self.tensor_spec(p.name, where, p.written or str(t), t, p.shape, optional)
        if isinstance(t, HostType) and t.name in HOST_PY:
            return f"_ss_rt.HostSpec({p.name!r}, {where!r}, {HOST_PY[t.name]}{', optional=True' if optional else ''})"
        if isinstance(t, ModelType):
            return f"_ss_rt.ModelSpec({p.name!r}, {where!r}, {self.ctx.model_ref_type(t)})"
        if isinstance(t, SizeParam):
            # A `fn`'s `n: Size` binds `n`, so the tensors' `n` axes must agree with it.
            binds = f", binds={t.name!r}" if not sig.is_extern else ""
            return f"_ss_rt.HostSpec({p.name!r}, {where!r}, int{binds})"
        return None

    def arg_specs(self, sig: FnSig) -> str | None:
        specs = [self.param_spec(sig, i) for i in range(len(sig.params))]
        if not specs or all(s is None for s in specs):
            return None
        return "(" + ", ".join(s if s is not None else "None" for s in specs) + ("," if len(specs) == 1 else "") + ")"

    def as_spec(self, e: ast.AssertType, res: AssertRes) -> str:
        t = res.target
        if isinstance(t, TensorType):
            return self.tensor_spec("", res.where, res.written, t, res.shape)
        if isinstance(t, HostType):
            return f"_ss_rt.HostSpec('', {res.where!r}, {HOST_PY.get(t.name, 'object')})"
        return "None"

    def generics_in(self, t: Type) -> set[str]:
        if isinstance(t, TupleType):
            return set().union(*(self.generics_in(x) for x in t.items)) if t.items else set()
        if not isinstance(t, TensorType) or self.ctx.fn is None:
            return set()
        out: set[str] = set()
        for a in t.axes:
            if not a.variadic:
                out |= {v for v in a.size.free_vars() if v in self.ctx.fn.generics}
        return out

    # -- where a body reads its generics ---------------------------------------------------
    def generic_source(self, sig: FnSig, name: str) -> str:
        for i, p in enumerate(sig.params):
            if isinstance(p.type, SizeParam) and p.type.name == name and not sig.is_extern:
                return _py(sig.decl.params[i].name)  # `n: Size`: the argument is the size
        lin_fallback = None
        for i, p in enumerate(sig.params):
            t = p.type
            if not isinstance(t, TensorType):
                continue
            vi = next((k for k, a in enumerate(t.axes) if a.variadic), None)
            for k, a in enumerate(t.axes):
                if a.variadic:
                    continue
                pos = k if vi is None or k < vi else k - len(t.axes)
                arg = _py(sig.decl.params[i].name)
                if a.size.var_name == name:
                    return f"{arg}.shape[{pos}]"
                lin = a.size.linear()
                if lin is not None and lin[0] == name and lin_fallback is None:
                    _, aa, c = lin
                    lin_fallback = f"(({arg}.shape[{pos}] - {c}) // {aa})"
        if lin_fallback is not None:
            return lin_fallback
        for p in sig.params:
            if isinstance(p.type, AxisParam) and p.type.name == name:
                return "0"
        raise AssertionError(f"generic {name} of {sig.name} has no source")

    def device_source(self, sig: FnSig) -> str:
        for i, p in enumerate(sig.params):
            if isinstance(p.type, TensorType):
                return f"{_py(sig.decl.params[i].name)}.device"
        return "_ss_rt.call_device()"


def _py(name: str) -> str:
    from shapescript.codegen.exprs import pyname

    return pyname(name)


def index_text(d: Domain) -> str:
    """``Index[P]`` as the source writes it, with the bound's value where it reads
    differently: ``Index[P] = Index[128]``."""
    return d.with_values()
