"""Code generation for tracing: the functions a program runs, lowered so that
``torch.export`` (and ``torch.compile(fullgraph=True)``) can trace them.

Every exporter starts here. ``generate_traced(program, fn, …)`` gives a ``TracedModule``:
the source of a module that needs only torch and einops, holding

- the body of ``fn`` and of every function it reaches, at any depth and in any imported
  ``.ss`` file, each on its ``.ss`` line where it has one;
- the runtime helpers they use (``shapescript.rt``, inlined) and the tracing helpers
  (``rt/traced.py``, inlined);
- ``_ss_entry``: ``fn``'s tensor parameters in, its value checks (as
  ``aten._assert_async``, when ``_SS_VALUES``), then the body;
- the constants ``_SS_DEVICE``, ``_SS_CHECKS`` and ``_SS_VALUES``.

An exporter appends its own step (an ``nn.Module`` to export, a Hugging Face model) to
the source; the line numbers of what is above stay as ``line_table`` gives them.

It differs from ordinary code generation (``ModuleGen``) in four places: an ``if``
without a ``return`` becomes branch functions run by ``_ss_ex_if`` (a Python ``if``
when the condition is known while tracing, else ``torch.cond``); a ``for i in a..b``
without a ``return`` becomes a body function run by ``_ss_ex_for`` (unrolled when both
ends are numbers while tracing, else ``torch.while_loop``); ``as`` becomes
``torch._check`` facts and ``_assert_async`` value checks (``_ss_ex_as``); and there
are no checked entries: a traced program's inputs are checked by the tracer against the
shapes it was given, and their values by ``_ss_entry``.

Why this is in the core rather than in an exporter: it is a mode of the statement and
expression generators, shared by every export target (``.pt2``, Hugging Face, GGUF),
and keeping it here keeps those generators private to the core.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shapescript.check.env import FnSig
from shapescript.check.exports import reached_functions
from shapescript.check.known import live_statement
from shapescript.check.resolutions import IntIndex
from shapescript.check.result import AssertRes, CheckedModule, Program
from shapescript.check.sizes import Size
from shapescript.check.types import TensorType
from shapescript.codegen.exprs import ExprGen
from shapescript.codegen.inline_dims import InlineDimsStmtGen
from shapescript.codegen.layout import Emitter
from shapescript.codegen.module import ModuleGen, mode_expr
from shapescript.codegen.names import pyname
from shapescript.codegen.pytext import comment, name_from
from shapescript.syntax import ast
from shapescript.unannotated import unannotated
from shapescript.vocab import DOMAIN_BOUNDS, UNCHECKED_DOMAINS, device_name

__all__ = ["TracedModule", "TracedModuleGen", "TracedStmtGen", "domain_of",
           "generate_traced", "traced_helpers_source"]

_RT_MARKER = "# ---- inlined below ----\n"


def traced_helpers_source() -> str:
    """The tracing helpers' source (``rt/traced.py`` below its marker line), with the
    vocabulary tables they read inlined."""
    text = (Path(__file__).parent.parent / "rt" / "traced.py").read_text(encoding="utf-8")
    return f"_SS_EX_BOUNDS = {DOMAIN_BOUNDS!r}\n\n" + unannotated(text.split(_RT_MARKER, 1)[1])


def domain_of(t: TensorType) -> tuple | None:
    """What a value check of ``t`` needs: ``(kind, over axis position, Index bound or
    None, text)``, or None when its domain has nothing to check."""
    d = t.domain
    if d.kind in UNCHECKED_DOMAINS:
        return None
    over = None
    if d.over is not None:
        over = next((i for i, a in enumerate(t.axes) if a.label == d.over), None)
    return (d.kind, over, d.index if d.kind == "Index" else None, str(d))


# -- what blocks assign ----------------------------------------------------------------

def _returns(stmts: tuple[ast.Stmt, ...] | None) -> bool:
    """Whether a ``return`` is anywhere in ``stmts``."""
    for s in stmts or ():
        if isinstance(s, ast.Return):
            return True
        if isinstance(s, ast.If):
            if any(_returns(b.body) for b in s.branches) or _returns(s.orelse):
                return True
        elif isinstance(s, (ast.For, ast.With)) and _returns(s.body):
            return True
    return False


def _assigned(stmts: tuple[ast.Stmt, ...] | None, out: dict[str, None]) -> dict[str, None]:
    """Every name ``stmts`` may assign, in order of first appearance."""
    for s in stmts or ():
        if isinstance(s, ast.Assign):
            for t in s.targets:
                if isinstance(t, ast.Name):
                    out.setdefault(pyname(t.id), None)
        elif isinstance(s, ast.If):
            for b in s.branches:
                _assigned(b.body, out)
            _assigned(s.orelse, out)
        elif isinstance(s, (ast.For, ast.With)):
            _assigned(s.body, out)
    return out


def _definite(stmts: tuple[ast.Stmt, ...] | None) -> set[str] | None:
    """The names ``stmts`` assign on every path that goes on after them (a loop's body
    may not run); None when no path does (each ends in a ``return``)."""
    out: set[str] = set()
    for s in stmts or ():
        if isinstance(s, ast.Return):
            return None
        if isinstance(s, ast.Assign):
            out |= {pyname(t.id) for t in s.targets if isinstance(t, ast.Name)}
        elif isinstance(s, ast.If) and s.orelse is not None:
            going = [d for d in (_definite(b) for b in [br.body for br in s.branches]
                                 + [s.orelse]) if d is not None]
            if not going:
                return None
            out |= set.intersection(*going)
        elif isinstance(s, ast.With):
            inner = _definite(s.body)
            if inner is None:
                return None
            out |= inner
    return out


def _tuple(names: list[str]) -> str:
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


class TracedStmtGen(InlineDimsStmtGen):
    """Statements of an exported function and of what it calls (see the module doc)."""

    ctx: "TracedModuleGen"  # this mode's context: its blocks, its inlined dims

    def __init__(self, cm: CheckedModule, ctx: "TracedModuleGen", em: Emitter) -> None:
        super().__init__(cm, ctx, em)
        sig = ctx.fn
        self.defined: set[str] = (
            {pyname(p.name) for p in sig.decl.params} if sig is not None else set())

    def g_Index(self, e: ast.Index) -> str:
        # A host index may be a loop's i, a 0-d tensor inside a torch.while_loop:
        # ``_ss_ex_pick`` selects with ``index_select`` then, which needs no number.
        res = self.cm.res.get(e)
        if not isinstance(res, IntIndex) or all(isinstance(i, ast.Num) for i in e.indices):
            return super().g_Index(e)
        idx = [self.expr(i) for i in e.indices]  # type: ignore[arg-type]
        return f"_ss_ex_pick({self.expr(e.value)}, {_tuple(idx)})"

    def s_Assign(self, s: ast.Assign, ind: int) -> None:
        super().s_Assign(s, ind)
        self.defined |= {pyname(t.id) for t in s.targets if isinstance(t, ast.Name)}

    def _block_fn(self, header_line: int | None, ind: int, name: str, params: list[str],
                  body: tuple[ast.Stmt, ...], outputs: list[str]) -> None:
        """``def name(params): body; return outputs``, the body on its lines."""
        self.em.emit(header_line, ind, f"def {name}({', '.join(params)}):", simple=False)
        saved = self.defined
        self.defined = set(saved) | set(params)
        if body:
            self.block(body, ind + 1)
        self.defined = saved
        last = self.em.lines[-1].ss_line
        self.em.emit(last, ind + 1, f"return {_tuple(outputs)}")

    def s_If(self, s: ast.If, ind: int) -> None:
        live = live_statement(self.cm.res, s)
        if not isinstance(live, ast.If):
            super().s_If(s, ind)
            self.defined |= _definite(live) or set() if live else set()
            return
        s = live
        if _returns((s,)):
            # A return inside makes it a Python if, which needs the condition to be
            # known while tracing.
            super().s_If(s, ind)
            self.defined |= _definite((s,)) or set()
            return
        first, rest = s.branches[0], s.branches[1:]
        then_body = first.body
        if rest:
            else_body: tuple[ast.Stmt, ...] = (ast.If(tuple(rest), s.orelse, rest[0].span),)
            else_line: int | None = rest[0].span.line
        else:
            else_body = s.orelse or ()
            else_line = else_body[0].span.line - 1 if else_body else None
        may = _assigned(then_body, {})
        _assigned(else_body, may)
        carried = [n for n in may if n in self.defined]
        both = (_definite(then_body) or set()) & (_definite(else_body) or set())
        new = [n for n in may if n not in self.defined and n in both]
        outputs = carried + new
        k = self.ctx.next_block()
        cond = self.expr(first.cond)
        self._block_fn(first.span.line, ind, f"_ss_then_{k}", carried, then_body, outputs)
        self._block_fn(else_line, ind, f"_ss_else_{k}", carried, else_body, outputs)
        call = f"_ss_ex_if({cond}, _ss_then_{k}, _ss_else_{k}, {_tuple(carried)})"
        self.em.emit(first.span.line, ind, f"{_tuple(outputs)} = {call}" if outputs else call)
        self.defined |= set(outputs)

    def s_For(self, s: ast.For, ind: int) -> None:
        it = s.iter
        if not isinstance(it, ast.Range) or len(s.targets) != 1 or _returns(s.body):
            super().s_For(s, ind)
            return
        var = pyname(s.targets[0])
        carried = [n for n in _assigned(s.body, {}) if n in self.defined and n != var]
        k = self.ctx.next_block()
        lo, hi = self.index_value(it.lo), self.index_value(it.hi)
        self._block_fn(s.span.line, ind, f"_ss_body_{k}", [var] + carried, s.body, carried)
        call = f"_ss_ex_for({lo}, {hi}, _ss_body_{k}, {_tuple(carried)})"
        self.em.emit(s.span.line, ind, f"{_tuple(carried)} = {call}" if carried else call)


# -- the module ---------------------------------------------------------------------------

@dataclass
class TracedModule:
    """A function lowered for tracing, as module source (see the module doc).

    ``params`` are the names of ``_ss_entry``'s parameters (the function's tensor
    parameters, in order); ``line_table`` maps a line of ``source`` to the ``.ss`` line
    and column it comes from (the main file's lines only).
    """

    source: str
    fn: str
    path: str
    device: str
    params: list[str]
    line_table: dict[int, tuple[int, int]] = field(default_factory=dict)
    # Generic → its largest value allowed by the body's checks (a slice of a static axis)
    max_sizes: dict[str, int] = field(default_factory=dict)
    # Generic → the one size the body's keyword sizes allow it (taken as static)
    fixed_sizes: dict[str, int] = field(default_factory=dict)


class TracedModuleGen(ModuleGen):
    """The module of one traced function (see the module doc)."""

    stmt_gen_class = TracedStmtGen  # type: ignore[assignment]  # made with this mode's context

    def __init__(self, program: Program, sig: FnSig, *, checks: str, value_checks: str,
                 devices: str | None, path: str) -> None:
        cm = program.main
        assert cm is not None, "a traced module needs a program that checked"
        super().__init__(cm, program, checks, value_checks, None, True)
        self.target = sig
        self.device = device_name(devices or cm.env.device or "cpu")
        self.path = path
        self.inline_dims = False
        self.blocks = 0
        self.foreign: dict[int, tuple[FnSig, str]] = {}
        self.foreign_todo: list[FnSig] = []

    def next_block(self) -> int:
        self.blocks += 1
        return self.blocks

    # -- references ---------------------------------------------------------------------
    def def_name(self, sig: FnSig) -> str:
        return self.unchecked_ref(sig)

    def unchecked_ref(self, sig: FnSig) -> str:
        main = self.program.main
        assert main is not None  # (checked in __init__)
        if sig.file == main.env.path:
            return "_unchecked_" + sig.name
        entry = self.foreign.get(id(sig))
        if entry is None:
            stem = name_from(os.path.splitext(os.path.basename(sig.file))[0])
            entry = (sig, f"_unchecked_{stem}__{sig.name}")
            self.foreign[id(sig)] = entry
            self.foreign_todo.append(sig)
        return entry[1]

    def gen_entry(self, sig: FnSig) -> None:
        pass  # no checked entries: torch checks the program's inputs

    def prelude_lines(self, sig: FnSig) -> list[str]:
        return [line.replace("_ss_rt.call_device()", "_ss_torch.device(_SS_DEVICE)")
                for line in super().prelude_lines(sig)]

    def assert_check(self, code: str, e: ast.AssertType, res: AssertRes, g: ExprGen) -> str:
        t = res.target
        if not isinstance(t, TensorType):
            return code
        sizes: list[str] | None = []
        for a in t.axes:
            if a.variadic or sizes is None:
                sizes = None  # the rank isn't known: values only
                break
            s = a.size
            unknown = [v for v in s.free_vars() if v.startswith("?")]
            if s.is_const:
                sizes.append(str(s.const_value))
            elif unknown:
                name = s.var_name or f"?{len(sizes)}"
                sizes.append(repr(name.split("#")[0]))
            else:
                sizes.append(g.size(s))
        dom = domain_of(t)
        domain = "None"
        if dom is not None:
            kind, over, bound, text = dom
            b = "None" if bound is None else g.size(bound)
            domain = f"({kind!r}, {over!r}, {b}, {text!r})"
        shape = "None" if sizes is None else _tuple(sizes)
        return (f"_ss_ex_as({code}, {shape}, {res.where!r}, {res.written!r}, "
                f"{domain}, _SS_CHECKS, _SS_VALUES)")

    def extern_result_check(self, code: str, e: ast.Call, res: Any, g: ExprGen) -> str:
        """A declared extern's result is checked as an ``as`` to its declared type is in a
        traced module (``_ss_ex_as``): the module has no checkers of its own."""
        sig = res.sig
        t = self.cm.types.get(e)
        if sig is None or not isinstance(t, TensorType) or not self.checks_extern(sig):
            return code
        where = f"{self.specs.where(e.span)}: result of {sig.name}"
        return self.assert_check(code, e, AssertRes(t, False, str(sig.ret), where), g)  # type: ignore[arg-type]

    # -- what is reached ----------------------------------------------------------------
    def reached(self) -> list[FnSig]:
        return reached_functions(self.target, self.cm.env.fn_data)

    def run(self) -> str:
        env = self.cm.env
        mine = {id(s) for s in self.reached() if s.file == env.path}
        body = Emitter()
        self.em = body
        for d in env.module.decls:
            if isinstance(d, ast.DimDecl) and d.size is not None and d.name in env.dims:
                body.emit(d.span.line, 0, f"{d.name} = {env.dims[d.name]}")
            elif isinstance(d, ast.FnDecl) and d.name in env.fns and id(env.fns[d.name]) in mine:
                self.gen_fn(env.fns[d.name])
        foreign_text = self.gen_foreign()
        self.em = body
        head = ["import torch as _ss_torch", "import einops as _ss_einops"]
        for (mod, fn), alias in self.externs.items():
            head.append(f"from {mod} import {fn} as {alias}")
        final = Emitter()
        final.emit(1, 0, "; ".join(head))
        final.lines += body.lines
        laid = final.layout()
        self.line_map = final.line_map
        tail = self.entry_lines()
        text = laid + foreign_text + "\n".join(tail)
        out = Emitter()
        out.emit(1, 0, "; ".join(head))
        out.lines += body.lines
        out.emit(None, 0, "")
        if foreign_text:
            out.emit(None, 0, "# Functions of the imported .ss files it calls.")
            for line in foreign_text.splitlines():
                out.emit(None, 0, line)
            out.emit(None, 0, "")
        helpers = self.standalone_helpers(text)
        if helpers:
            out.emit(None, 0, "# The ShapeScript runtime helpers this module uses, inlined.")
            for line in helpers.splitlines():
                out.emit(None, 0, line)
            out.emit(None, 0, "")
        out.emit(None, 0, "# The tracing helpers (shapescript.rt.traced), inlined.")
        for line in traced_helpers_source().splitlines():
            out.emit(None, 0, line)
        out.emit(None, 0, "")
        for line in tail:
            out.emit(None, 0, line)
        return out.layout() + "\n"

    def standalone_helpers(self, text: str) -> str:
        names = sorted(set(re.findall(r"_ss_rt\.([A-Za-z_][A-Za-z0-9_]*)", text)))
        if not names:
            return ""  # (and no need to read the runtime's sources)
        from shapescript.rt.standalone import helper_source

        return helper_source(names, prefix="_ss_", namespace="_ss_rt")

    def gen_foreign(self) -> str:
        """The functions of other files that the exported function reaches, laid out in
        the order their files give them (dims inlined as numbers)."""
        chunks = []
        done: set[int] = set()
        for sig in self.reached():
            if sig.file != self.cm.env.path:
                self.unchecked_ref(sig)
        while self.foreign_todo:
            sig = self.foreign_todo.pop(0)
            if id(sig) in done:
                continue
            done.add(id(sig))
            cm = self.program.modules.get(sig.file)
            if cm is None:
                raise AssertionError(f"no checked module for {sig.file}")
            saved = (self.cm, self.specs, self.inline_dims)
            from shapescript.codegen.specs import SpecBuilder

            self.cm, self.inline_dims = cm, True
            self.specs = SpecBuilder(cm, self)
            sub = Emitter()
            self.em = sub
            self.gen_fn(sig)
            self.cm, self.specs, self.inline_dims = saved
            first = min((ln.ss_line for ln in sub.lines if ln.ss_line is not None), default=1)
            for ln in sub.lines:
                if ln.ss_line is not None:
                    ln.ss_line -= first - 1
            chunks.append(comment(f"{os.path.basename(sig.file)}: {sig.name}") + "\n"
                          + sub.layout())
        return "\n".join(chunks)

    # -- the entry ----------------------------------------------------------------------
    def entry_lines(self) -> list[str]:
        """The constants, and ``_ss_entry``: value checks, then the body."""
        sig = self.target
        names = [pyname(p.name) for p in sig.params if isinstance(p.type, TensorType)]
        lines = [
            f"_SS_DEVICE = {self.device!r}",
            f"_SS_CHECKS = {mode_expr(self.checks)}",
            f"_SS_VALUES = {mode_expr(self.value_checks)}",
            "",
            "",
            f"def _ss_entry({', '.join(names)}):",
            f"    {f'`{sig.name}` of {os.path.basename(self.path)}, with its value checks.'!r}",
        ]
        checks = []
        base = os.path.basename(self.cm.env.path)
        for p, dp in zip(sig.params, sig.decl.params):
            if not isinstance(p.type, TensorType):
                continue
            dom = domain_of(p.type)
            if dom is None:
                continue
            kind, over, bound, text = dom
            b = "None" if bound is None else self.bound_source(bound)
            where = f"{base}:{dp.span.line}:{dp.span.col}"
            msg = f"{where}: {pyname(p.name)}: expected {text}"
            checks.append(f"        _ss_ex_assert_domain({pyname(p.name)}, {kind!r}, "
                          f"{over!r}, {b}, {msg!r})")
        if checks:
            lines.append("    if _SS_VALUES:")
            lines += checks
        lines.append(f"    return {self.def_name(sig)}({', '.join(names)})")
        return lines

    def bound_source(self, bound: Size) -> str:
        """An ``Index`` bound in ``forward``, from the parameters' sizes."""
        if bound.is_const:
            return str(bound.const_value)
        return bound.to_python(lambda v: self.specs.generic_source(self.target, v)
                               if v not in self.cm.env.dims else str(self.cm.env.dims[v]))

    def line_table(self) -> dict[int, tuple[int, int]]:
        """Python line → (``.ss`` line, column) for the main file's lines."""
        src_lines = self.cm.source.splitlines()
        out = {}
        for i, ss in enumerate(self.line_map, start=1):
            if i == 1 or ss is None or ss < 1 or ss > len(src_lines):  # 1: the imports
                continue
            text = src_lines[ss - 1]
            out[i] = (ss, len(text) - len(text.lstrip()) + 1)
        return out



def generate_traced(program: Program, fn: str, *, checks: str = "always",
                    value_checks: str = "debug", devices: str | None = None,
                    path: str | None = None) -> TracedModule:
    """The traced module of function ``fn`` of ``program.main`` (which must check).

    ``checks`` and ``value_checks`` (``always``, ``debug`` or ``never``) decide which
    ``as`` and argument checks the module keeps; ``devices`` is the device its tensors
    are made on (the file's, else the CPU).
    """
    for mode in (checks, value_checks):
        if mode not in ("always", "debug", "never"):
            raise ValueError(f"checks mode must be always, debug or never, not {mode!r}")
    cm = program.main
    assert cm is not None, "a traced module needs a program that checked"
    sig = cm.env.fns[fn]
    gen = TracedModuleGen(program, sig, checks=checks, value_checks=value_checks,
                          devices=devices, path=path or cm.env.path)
    source = gen.run()
    params = [pyname(p.name) for p in sig.params if isinstance(p.type, TensorType)]
    fr = cm.fns.get(fn)
    return TracedModule(source, fn, gen.path, gen.device, params, gen.line_table(),
                        dict(fr.max_sizes) if fr is not None else {},
                        dict(fr.fixed_sizes) if fr is not None else {})
