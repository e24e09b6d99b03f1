"""Code generation for export: a module that traces one function with ``torch.export``.

``generate_export(program, fn, …)`` writes a Python module that needs only torch and
einops (book ch. 17, DECISIONS §21, §25). It holds

- the body of the function being exported and of every function it reaches, at any
  depth and in any imported ``.ss`` file, each on its ``.ss`` line where it has one;
- the runtime helpers they use (``shapescript.rt``, inlined) and the export helpers
  (``codegen/export_rt.py``, inlined);
- the export step: an ``nn.Module`` whose ``forward`` takes the tensor parameters by
  name, the ``dynamic_shapes`` and example inputs built from the signature's types,
  ``export_program()``, ``save()``, and a ``__main__`` that runs ``-o OUT [--aoti]``.

It differs from ordinary code generation (``ModuleGen``) in four places: an ``if``
without a ``return`` becomes branch functions run by ``_ss_ex_if`` (a Python ``if``
when the condition is known while tracing, else ``torch.cond``); a ``for i in a..b``
without a ``return`` becomes a body function run by ``_ss_ex_for`` (unrolled when both
ends are numbers while tracing, else ``torch.while_loop``); ``as`` becomes
``torch._check`` facts and ``_assert_async`` value checks (``_ss_ex_as``); and there
are no checked entries: the program's inputs are checked against the dynamic shapes by
torch, their values by ``_assert_async`` in ``forward``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shapescript.check.env import FnSig
from shapescript.check.result import AssertRes, CheckedModule
from shapescript.check.sizes import Size
from shapescript.check.types import TensorType
from shapescript.codegen.export_shapes import domain_of, signature_shapes
from shapescript.codegen.exprs import ExprGen, pyname
from shapescript.codegen.layout import Emitter
from shapescript.codegen.module import ModuleGen, mode_expr
from shapescript.codegen.stmts import StmtGen
from shapescript.syntax import ast

__all__ = ["ExportModule", "ExportModuleGen", "ExportStmtGen", "device_name",
           "generate_export"]

_RT_MARKER = "# ---- inlined below ----\n"
_DEVICE_RE = re.compile(r"^(cpu|cuda|mps|meta|xpu)(?:\[(\d+)\]|:(\d+))?$")


def device_name(spec: str) -> str:
    """A ShapeScript device (``cuda[0]``) as torch writes it (``cuda:0``); ValueError
    if it isn't one."""
    m = _DEVICE_RE.match(spec.strip())
    if m is None:
        raise ValueError(f"not a device: {spec!r} (expected cpu, cuda, cuda[N] or mps)")
    index = m.group(2) or m.group(3)
    return m.group(1) + (f":{index}" if index is not None else "")


def export_helpers_source() -> str:
    """The source of ``export_rt.py`` below its marker line."""
    text = (Path(__file__).parent / "export_rt.py").read_text(encoding="utf-8")
    return text.split(_RT_MARKER, 1)[1]


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


class ExportStmtGen(StmtGen):
    """Statements of an exported function and of what it calls (see the module doc)."""

    def __init__(self, cm: CheckedModule, ctx: Any, em: Emitter) -> None:
        super().__init__(cm, ctx, em)
        sig = ctx.fn
        self.defined: set[str] = (
            {pyname(p.name) for p in sig.decl.params} if sig is not None else set())

    # Dims of another file's function are numbers here: only the main file's are
    # module constants.
    def size(self, s: Size) -> str:
        if self.ctx.inline_dims:
            dims = self.cm.env.dims
            s = s.substitute({v: dims[v] for v in s.free_vars() if v in dims})
        return super().size(s)

    def g_Name(self, e: ast.Name) -> str:
        res = self.cm.res.get(id(e))
        if self.ctx.inline_dims and res is not None and res.kind == "dim":
            return str(res.value)
        return super().g_Name(e)

    def g_Index(self, e: ast.Index) -> str:
        # A host index may be a loop's i, a 0-d tensor inside a torch.while_loop:
        # ``_ss_ex_pick`` selects with ``index_select`` then, which needs no number.
        res = self.cm.res.get(id(e))
        if (res is None or res.kind != "int"
                or all(isinstance(i, ast.Num) for i in e.indices)):
            return super().g_Index(e)
        idx = [self.expr(i) for i in e.indices]
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
        if _returns((s,)):
            # A return inside makes it a Python if, which needs the condition to be
            # known while tracing (book ch. 17).
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
class ExportModule:
    """The generated module: its source and, per line of it, the ``.ss`` line and
    column it comes from."""

    source: str
    fn: str
    line_map: dict[int, tuple[int, int]] = field(default_factory=dict)


class ExportModuleGen(ModuleGen):
    stmt_gen_class = ExportStmtGen

    def __init__(self, program: Any, sig: FnSig, *, checks: str, value_checks: str,
                 devices: str | None, path: str) -> None:
        cm = program.main
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
        if sig.file == self.program.main.env.path:
            return "_unchecked_" + sig.name
        entry = self.foreign.get(id(sig))
        if entry is None:
            stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(sig.file))[0])
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
            if a.variadic:
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

    # -- what is reached ----------------------------------------------------------------
    def reached(self) -> list[FnSig]:
        data = self.cm.env.fn_data
        out: list[FnSig] = []
        seen: set[int] = set()
        stack = [self.target]
        while stack:
            sig = stack.pop()
            if id(sig) in seen or sig.is_extern:
                continue
            seen.add(id(sig))
            out.append(sig)
            entry = data.get(id(sig))
            if entry is not None:
                stack.extend(entry[1])
        return out

    def run(self) -> str:  # type: ignore[override]
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
        tail = self.export_step()
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
        out.emit(None, 0, "# The export helpers (shapescript.codegen.export_rt), inlined.")
        for line in export_helpers_source().splitlines():
            out.emit(None, 0, line)
        out.emit(None, 0, "")
        for line in tail:
            out.emit(None, 0, line)
        return out.layout()

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
            chunks.append(f"# {os.path.basename(sig.file)}: {sig.name}\n" + sub.layout())
        return "\n".join(chunks)

    # -- the export step ----------------------------------------------------------------
    def export_step(self) -> list[str]:
        sig = self.target
        shapes = signature_shapes(sig, self.cm.env.path)
        fn = sig.name
        base = os.path.basename(self.path)
        lines = [
            f"# The export step: `python THIS_FILE -o {os.path.splitext(base)[0]}.pt2 "
            "[--aoti]` exports",
            f"# `{fn}` of {base} with torch.export (generated by shapescript export).",
            f"_SS_FILE = {self.path!r}",
            f"_SS_FN = {fn!r}",
            f"_SS_DEVICE = {self.device!r}",
            f"_SS_CHECKS = {mode_expr(self.checks)}",
            f"_SS_VALUES = {mode_expr(self.value_checks)}",
            f"_SS_LINES = {self.line_table()!r}",
            "",
            "",
            "class _SSProgram(_ss_torch.nn.Module):",
            f"    {f'`{fn}` of {base}, as the module torch.export traces.'!r}",
            "",
        ]
        names = [p.name for p in shapes.params]
        lines.append(f"    def forward(_ss_self{''.join(', ' + n for n in names)}):")
        checks = []
        for p in shapes.params:
            if p.domain is None:
                continue
            kind, over, bound, text = p.domain
            b = "None" if bound is None else self.bound_source(bound)
            msg = f"{p.where}: {p.name}: expected {text}"
            checks.append(f"            _ss_ex_assert_domain({p.name}, {kind!r}, {over!r}, "
                          f"{b}, {msg!r})")
        if checks:
            lines.append("        if _SS_VALUES:")
            lines += checks
        args = ", ".join(pyname(p.name) for p in sig.params if isinstance(p.type, TensorType))
        lines.append(f"        return {self.def_name(sig)}({args})")
        mins = {shapes.names[v]: m for v, m in shapes.mins.items()}
        lines += ["", "", "def _ss_dynamic_shapes():",
                  f"    _d = _ss_ex_dims({mins!r})", "    return {"]
        for p in shapes.params:
            entries = []
            for k, ax in enumerate(p.axes):
                if ax[0] == "dim":
                    entries.append(f"{k}: _d[{shapes.names[ax[1]]!r}]")
                elif ax[0] == "derived":
                    _, v, a, c = ax
                    v = shapes.names[v]
                    expr = (f"{a} * _d[{v!r}]" if a != 1 else f"_d[{v!r}]") + (
                        f" + {c}" if c > 0 else f" - {-c}" if c < 0 else "")
                    entries.append(f"{k}: {expr}")
                elif ax[0] == "auto":
                    entries.append(f"{k}: _ss_torch.export.Dim.AUTO")
            spec = "{" + ", ".join(entries) + "}" if entries else "None"
            lines.append(f"        {p.name!r}: {spec},")
        lines += ["    }", "", "", "def _ss_examples(device):",
                  "    _g = _ss_torch.Generator().manual_seed(0)", "    return ("]
        for p in shapes.params:
            dom = "None"
            if p.domain is not None:
                kind, over, bound, _ = p.domain
                b = None if bound is None else bound.evaluate(shapes.examples)
                dom = repr((kind, over, b))
            lines.append(f"        _ss_ex_example({p.example!r}, {p.dtype!r}, {dom}, device, _g),")
        lines += [
            "    )",
            "",
            "",
            "def export_program(devices=None):",
            f"    {f'The torch.export.ExportedProgram of `{fn}` ({base}).'!r}",
            "    device = _SS_DEVICE if devices is None else devices.replace('[', ':').rstrip(']')",
            "    return _ss_ex_export(_SSProgram(), _ss_examples(_ss_torch.device(device)),",
            "                         _ss_dynamic_shapes())",
            "",
            "",
            "def save(ep, path, aoti=False):",
            "    'Writes the program to `path` (an AOTInductor package with `aoti`), atomically.'",
            "    return _ss_ex_save(ep, path, aoti)",
            "",
            "",
            "def _ss_locate(err):",
            "    'The .ss location of the innermost frame of `err` in these functions.'",
            "    code = _SSProgram.forward.__code__.co_filename",
            "    return _ss_ex_location(err, {code}, _SS_LINES, _SS_FILE)",
            "",
            "",
            "if __name__ == '__main__':",
            f"    _ss_ex_main(export_program, save, _SS_FILE, _SS_FN, "
            f"{os.path.splitext(self.path)[0] + '.pt2'!r}, _ss_locate)",
        ]
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


def generate_export(program: Any, fn: str, *, checks: str = "always",
                    value_checks: str = "debug", devices: str | None = None,
                    path: str | None = None) -> ExportModule:
    """The export module of function ``fn`` of ``program.main`` (which must check)."""
    for mode in (checks, value_checks):
        if mode not in ("always", "debug", "never"):
            raise ValueError(f"checks mode must be always, debug or never, not {mode!r}")
    cm = program.main
    sig = cm.env.fns[fn]
    gen = ExportModuleGen(program, sig, checks=checks, value_checks=value_checks,
                          devices=devices, path=path or cm.env.path)
    source = gen.run()
    return ExportModule(source, fn, gen.line_table())
