"""Code generation of one function and what it reaches, as plain readable Python.

``generate_functions(program, fn, …)`` gives the source of the function ``fn`` of
``program.main`` and of every function it calls, under their own names, with the dims
they use as constants, the imports they need and the runtime helpers they call,
inlined. It needs torch and einops only. There are no checked entries and no ``as``
checks: the caller (an exporter writing a file for another program, such as a Hugging
Face modeling file) runs the functions on values it made itself.

Two hooks let an exporter put its own code in a few places without another code
generator:

``context``
    A name passed first to every generated function and from each call to the next,
    so that code a hook writes can reach per-call state (``attn.attention(…)``).
``calls(site)``
    Called for every call of an extern or a built-in with a ``CallSite``; returns the
    Python to write instead, or None to keep the call (an HF export turns
    ``scaled_dot_product_attention`` into transformers' attention interface).
``returns(sig, code)``
    Called for every ``return`` value of a function; returns the Python to write.

Only functions of the main file may be reached (a function of an imported ``.ss`` file is
a ValueError naming it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shapescript.check.env import FnSig
from shapescript.check.exports import reached_functions
from shapescript.check.result import CallRes
from shapescript.codegen.layout import Emitter
from shapescript.codegen.module import ModuleGen
from shapescript.codegen.stmts import StmtGen
from shapescript.syntax import ast

__all__ = ["CallSite", "FunctionsModule", "generate_functions"]


@dataclass
class CallSite:
    """One call the ``calls`` hook may replace.

    ``target``: an extern's Python path (``torch.nn.functional.linear``) or a built-in's
    name (``sum``). ``arg(i)`` / ``kwarg(name)`` generate the Python of an argument (an
    extern's arguments in its parameters' order, defaults filled in); generate only what
    the replacement uses."""

    node: ast.Call
    target: str
    res: CallRes
    gen: Any

    def arg(self, i: int) -> str:
        return self.gen.argval(self.res.args[i])

    def kwarg(self, name: str) -> str | None:
        for k, av in self.res.kwargs:
            if k == name:
                return self.gen.argval(av)
        return None

    @property
    def nargs(self) -> int:
        return len(self.res.args)

    def expr(self, node: ast.Expr) -> str:
        return self.gen.expr(node)


@dataclass
class FunctionsModule:
    """The generated source, and the Python name of each function (its own)."""

    source: str
    names: dict[str, str]


class _Stmts(StmtGen):
    def g_Call(self, e: ast.Call) -> str:
        res = self.cm.res.get(id(e))
        hook = self.ctx.calls
        if hook is not None and isinstance(res, CallRes) and res.kind in ("extern", "builtin"):
            target = res.sig.extern if res.kind == "extern" and res.sig is not None else res.name
            out = hook(CallSite(e, target or "", res, self))
            if out is not None:
                return out
        return super().g_Call(e)

    def fn_call(self, res: CallRes) -> str:
        assert res.sig is not None
        args = [self.argval(a) for a in res.args]
        if self.ctx.context:
            args.insert(0, self.ctx.context)
        return f"{self.ctx.unchecked_ref(res.sig)}({', '.join(args)})"

    def s_Return(self, s: ast.Return, ind: int) -> None:
        hook = self.ctx.returns
        if s.value is None or hook is None or self.ctx.fn is None:
            super().s_Return(s, ind)
            return
        self.em.emit(s.span.line, ind, "return " + hook(self.ctx.fn, self.expr(s.value)))


class FunctionsGen(ModuleGen):
    stmt_gen_class = _Stmts

    def __init__(self, program: Any, sig: FnSig, *, context: str | None,
                 calls: Callable[[CallSite], str | None] | None,
                 returns: Callable[[FnSig, str], str] | None) -> None:
        super().__init__(program.main, program, "never", "never", None, True)
        self.target = sig
        self.context = context
        self.calls = calls
        self.returns = returns

    def def_name(self, sig: FnSig) -> str:
        return sig.name

    def unchecked_ref(self, sig: FnSig) -> str:
        if sig.file != self.cm.env.path:
            raise ValueError(f"`{self.target.name}` calls `{sig.name}` of another file "
                             f"({sig.file}), which this export can't include yet")
        return sig.name

    def extra_params(self, sig: FnSig) -> list[str]:
        return [self.context] if self.context else []

    def gen_entry(self, sig: FnSig) -> None:
        pass  # no checked entries

    def reached(self) -> list[FnSig]:
        return reached_functions(self.target, self.cm.env.fn_data)

    def run(self) -> str:  # type: ignore[override]
        env = self.cm.env
        reached = self.reached()
        for sig in reached:
            self.unchecked_ref(sig)
        mine = {id(s) for s in reached}
        body = Emitter()
        self.em = body
        for d in env.module.decls:
            if isinstance(d, ast.FnDecl) and d.name in env.fns and id(env.fns[d.name]) in mine:
                if body.lines:
                    body.emit(None, 0, "")
                    body.emit(None, 0, "")
                self.gen_fn(env.fns[d.name])
                doc = d.doc if hasattr(d, "doc") else None
                if doc:
                    # The function's doc comment, as its docstring.
                    header = next(i for i in range(len(body.lines) - 1, -1, -1)
                                  if body.lines[i].text.startswith(f"def {d.name}("))
                    body.lines.insert(header + 1, type(body.lines[0])(None, 1, repr(doc)))
        for ln in body.lines:
            ln.ss_line = None  # one statement a line, not laid out on the .ss lines
        text = body.layout()
        used = set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", text))
        dims = [f"{name} = {value}" for name, value in env.dims.items() if name in used]
        head = ["import torch as _ss_torch", "import einops as _ss_einops"]
        for (mod, fn), alias in self.externs.items():
            head.append(f"from {mod} import {fn} as {alias}")
        parts = ["\n".join(head)]
        if dims:
            parts.append("\n".join(dims))
        parts.append(text.rstrip("\n"))
        names = sorted(set(re.findall(r"_ss_rt\.([A-Za-z_][A-Za-z0-9_]*)", text)))
        if names:
            from shapescript.rt.standalone import helper_source

            parts.append(helper_source(names, prefix="_ss_", namespace="_ss_rt").rstrip("\n"))
        return "\n\n\n".join(parts) + "\n"


def generate_functions(program: Any, fn: str, *, context: str | None = None,
                       calls: Callable[[CallSite], str | None] | None = None,
                       returns: Callable[[FnSig, str], str] | None = None) -> FunctionsModule:
    """The Python source of ``fn`` of ``program.main`` and what it reaches (see the
    module's doc). ``program`` must have checked without errors.

    >>> src = generate_functions(program, "forward").source        # doctest: +SKIP
    """
    sig = program.main.env.fns.get(fn)
    if sig is None or sig.is_extern:
        raise ValueError(f"no function `{fn}` in {program.main.env.path}")
    gen = FunctionsGen(program, sig, context=context, calls=calls, returns=returns)
    source = gen.run()
    return FunctionsModule(source, {s.name: s.name for s in gen.reached()})
