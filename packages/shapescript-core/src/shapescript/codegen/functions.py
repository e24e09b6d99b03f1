"""Code generation of one function and what it reaches, as plain readable Python.

``generate_functions(program, fn, …)`` gives the source of the function ``fn`` of
``program.main`` and of every function it calls, at any depth and in any imported
``.ss`` file, with the dims they use as constants, the imports they need and the runtime
helpers they call, inlined. It needs torch (and einops for a pattern torch's views
don't express) and imports nothing else: its error classes are its own. The caller (an
exporter writing a file for another program, such as a Hugging Face modeling file) calls
``fn`` with values it made itself.

``rearrange`` and ``repeat`` are torch's own view operations where the pattern allows
(``x.unflatten(2, (4, 16)).transpose(1, 2)`` for ``b n (H Dh) -> b H n Dh``): the same
values without einops' work in Python on every call, which a model's forward pays for
each pattern.

Names: the main file's functions keep theirs; a function of an imported file is
``<file stem>_<name>`` (``blocks.ss``'s ``attention`` is ``blocks_attention``), with a
number added where that is taken. ``reserved`` names the caller's own definitions, which
no function may take.

Shape checks stay, written out one test a line: ``fn`` checks its tensor arguments
against the shapes its signature declares when it is called (rank, then each axis:
numbers, sizes bound by an earlier argument, sizes solved from ``a*n + c``), and every
``as`` checks its value's shape, each failure a ``ShapeError`` with the message a checked
entry would give. The functions ``fn`` calls take what the checker proved, as checked
code does. Dtypes, devices, models and values aren't checked: an engine gives a model its
inputs on its own device, often in a lower precision. While ``torch.compile`` traces, a
comparison of sizes is a ``torch._check`` (no graph break, no guard on a size's value).

Three hooks let an exporter put its own code in a few places without another code
generator:

``context``
    A name passed first to every generated function and from each call to the next,
    so that code a hook writes can reach per-call state (``attn.attention(…)``).
``calls(site)``
    Called for every call of an extern, a built-in or a ``fn`` with a ``CallSite``;
    returns the Python to write instead, or None to keep the call (an HF export turns
    ``scaled_dot_product_attention`` into transformers' attention interface, and a
    block of layers into a call of the layer's module).
``returns(sig, code)``
    Called for every ``return`` value of a function; returns the Python to write.
``fields(obj, name)``
    Called for every read of a model's field ``name`` (``obj``: the model's Python);
    returns the Python to write (a field named as one of the caller's attributes).
``indexed_fields(obj, name, index)``
    Called for every read of one entry of a field, ``m.w[l]`` (``index``: the indices'
    Python); returns the Python to write, or None to index the field's (a folder whose
    layers are modules reads layer ``l``'s weight from its module).

Names the module's own code takes (``reserved``, the context, imports) are never a
function's or a dim's: those are renamed (``config`` → ``config_2``); the source keeps
its names.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from shapescript.check.env import FnSig
from shapescript.check.exports import reached_functions
from shapescript.check.payloads import Pattern
from shapescript.check.resolutions import BuiltinCall, ExternCall, FnCall
from shapescript.check.result import AssertRes, Program
from shapescript.check.sizes import Size
from shapescript.check.types import TensorType
from shapescript.codegen.exprs import ExprGen
from shapescript.codegen.inline_dims import InlineDimsStmtGen
from shapescript.codegen.layout import Emitter, Line
from shapescript.codegen.module import ModuleGen
from shapescript.codegen.names import T, generic_var, pyname
from shapescript.codegen.pytext import brace_text, comment, fstring, literal, name_from
from shapescript.codegen.specs import SpecBuilder, axis_texts
from shapescript.syntax import ast

__all__ = ["CallSite", "FunctionsModule", "generate_functions", "torch_views"]


@dataclass
class CallSite:
    """One call the ``calls`` hook may replace.

    ``target``: an extern's Python path (``torch.nn.functional.linear``), a built-in's
    name (``sum``) or a ``fn``'s (``block``). ``arg(i)`` / ``kwarg(name)`` generate the
    Python of an argument (an extern's or a ``fn``'s arguments in its parameters' order,
    defaults filled in); generate only what the replacement uses."""

    node: ast.Call
    target: str
    res: ExternCall | BuiltinCall | FnCall
    gen: Any

    def arg(self, i: int) -> str:
        assert not isinstance(self.res, BuiltinCall), "a built-in's arguments are its node's"
        return self.gen.argval(self.res.args[i])

    def kwarg(self, name: str) -> str | None:
        if not isinstance(self.res, ExternCall):
            return None
        for k, av in self.res.kwargs:
            if k == name:
                return self.gen.argval(av)
        return None

    @property
    def nargs(self) -> int:
        return 0 if isinstance(self.res, BuiltinCall) else len(self.res.args)

    def expr(self, node: ast.Expr) -> str:
        return self.gen.expr(node)


@dataclass
class FunctionsModule:
    """The generated source, and the Python name of each function reached (by its
    ``.ss`` name for the main file's, ``file.ss:name`` for another file's)."""

    source: str
    names: dict[str, str]


class _Stmts(InlineDimsStmtGen):
    ctx: FunctionsGen  # this mode's context: the caller's hooks
    def g_Call(self, e: ast.Call) -> str:
        res = self.cm.res.get(e)
        hook = self.ctx.calls
        if hook is not None and isinstance(res, (ExternCall, BuiltinCall, FnCall)):
            target = (res.sig.extern if isinstance(res, ExternCall) else
                      res.sig.name if isinstance(res, FnCall) else res.name)
            out = hook(CallSite(e, target or "", res, self))
            if out is not None:
                return out
        if isinstance(res, BuiltinCall) and res.name in ("rearrange", "repeat") \
                and isinstance(res.data, Pattern):
            out = torch_views(self, res.name, e, res.data)
            if out is not None:
                return out
        return super().g_Call(e)

    def fn_call(self, res: FnCall) -> str:
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


def _pattern_side(text: str) -> list[tuple[str, ...]] | None:
    """One side of an einops pattern as its axes, each a tuple of names (a group's
    several); None for what ``torch_views`` leaves to einops (``...``, numbers, ``()``)."""
    out: list[tuple[str, ...]] = []
    group: list[str] | None = None
    for tok in re.findall(r"\(|\)|[^\s()]+", text):
        if tok == "(":
            if group is not None:
                return None
            group = []
        elif tok == ")":
            if not group:
                return None
            out.append(tuple(group))
            group = None
        elif not tok.isidentifier():
            return None
        elif group is not None:
            group.append(tok)
        else:
            out.append((tok,))
    return out if group is None else None


def torch_views(g: Any, name: str, e: ast.Call, data: Pattern) -> str | None:
    """``rearrange`` or ``repeat`` as torch's own view operations (``unflatten``,
    ``permute``, ``flatten``, ``repeat_interleave``…), which compute what einops computes
    without its per-call work in Python; None for a pattern left to einops."""
    pattern = data.pattern
    if data.checks:
        return None
    lhs, _, rhs = pattern.partition("->")
    ins, outs = _pattern_side(lhs), _pattern_side(rhs)
    if not ins or not outs:
        return None
    e_in = [a for group in ins for a in group]
    e_out = [a for group in outs for a in group]
    new = [a for a in e_out if a not in e_in]
    if len(set(e_in)) != len(e_in) or len(set(e_out)) != len(e_out) or \
            not set(e_in) <= set(e_out) or (new and name != "repeat"):
        return None
    kwargs = dict(data.kwargs)

    def size(axis: str) -> str:  # "" for an axis the call gives no size
        v = kwargs.get(axis)
        if v is None:
            return ""
        return g.size(v) if isinstance(v, Size) else repr(v)

    if any(size(a) == "" for a in new):
        return None
    operands = [a.value for a in e.args if a.name is None][:e.pattern_pos]
    if len(operands) != 1:
        return None
    stacked = data.stacked
    inner = operands[0]
    made = g.cm.res.get(inner) if isinstance(inner, ast.Call) else None
    if not stacked and isinstance(made, BuiltinCall) and isinstance(inner, ast.Call) and \
            made.name == "stack" and len(inner.args) == 1 and inner.args[0].name is None:
        stacked, inner = True, inner.args[0].value   # rearrange(stack(items), …)
    x = g.expr(inner)
    if stacked:
        # A stack's new first axis moved to position p, the others in order: the
        # stack made there.
        order = [e_in.index(a) for a in e_out]
        p = order.index(0)
        if all(len(a) == 1 for a in ins) and \
                order == list(range(1, p + 1)) + [0] + list(range(p + 1, len(e_in))):
            return _merge(f"{T}.stack({x}, dim={p})", outs)
        x = f"{T}.stack({x})"
    if name == "repeat" and len(new) == 1 and len(ins) == len(outs):
        # One axis repeated in place: (X r) each element r times, (r X) the whole r times.
        diff = [k for k, (a, b) in enumerate(zip(ins, outs)) if a != b]
        if len(diff) == 1 and all(len(a) == 1 for a in ins):
            k, (axis,), out = diff[0], ins[diff[0]], outs[diff[0]]
            if out == (axis, new[0]):
                return f"{x}.repeat_interleave({size(new[0])}, dim={k})"
            if out == (new[0], axis):
                reps = ", ".join(size(new[0]) if j == k else "1" for j in range(len(ins)))
                return f"{x}.repeat({reps})"
    # Split the input's groups (from the last, so the positions before stay put).
    code = x
    for k in reversed(range(len(ins))):
        group = ins[k]
        if len(group) > 1:
            sizes = [size(a) for a in group]
            if sizes.count("") > 1:
                return None
            code = f"{code}.unflatten({k}, ({', '.join(s or '-1' for s in sizes)}))"
    # Put the axes in the output's order, the repeated ones new.
    kept = [a for a in e_out if a in e_in]
    order = [e_in.index(a) for a in kept]
    if order != list(range(len(order))):
        moved = [k for k, o in enumerate(order) if o != k]
        if len(moved) == 2 and order[moved[0]] == moved[1]:
            code = f"{code}.transpose({moved[0]}, {moved[1]})"
        else:
            code = f"{code}.permute({', '.join(map(str, order))})"
    if new:
        for k, a in enumerate(e_out):
            if a in new:
                code = f"{code}.unsqueeze({k})"
        code = f"{code}.expand({', '.join(size(a) if a in new else '-1' for a in e_out)})"
    return _merge(code, outs)


def _merge(code: str, outs: list[tuple[str, ...]]) -> str:
    """The output's groups merged (from the last, so the positions before stay put)."""
    starts = [sum(len(a) for a in outs[:k]) for k in range(len(outs))]
    for k in reversed(range(len(outs))):
        if len(outs[k]) > 1:
            code = f"{code}.flatten({starts[k]}, {starts[k] + len(outs[k]) - 1})"
    return code


class EntryChecks:
    """The checks of the exported function's tensor arguments, as a checked entry makes
    them and in its order (for each argument: rank, the sizes it binds, the sizes solved
    from ``a*n + c``, every other axis), one statement a line. ``bound`` maps each
    generic to the local that holds it afterwards."""

    def __init__(self, gen: FunctionsGen, sig: FnSig) -> None:
        self.gen = gen
        self.sig = sig
        self.lines: list[str] = []
        self.bound: dict[str, str] = {}
        self.binder: dict[str, str] = {}
        # Axes whose size needs a generic a later argument binds: (the axis, its size,
        # the argument's where, name, written type, axes and their texts).
        self.later: list[tuple[str, Any, str, str, str, list[Any], list[str]]] = []
        dims = gen.cm.env.dims
        base = os.path.basename(gen.cm.env.path)
        for p, dp in zip(sig.params, sig.decl.params):
            t = p.type
            if not isinstance(t, TensorType) or p.default is not None:
                continue  # models, host values and optional tensors aren't shape-checked
            axes = [a if a.variadic else _Axis(a.size.substitute(
                {v: dims[v] for v in a.size.free_vars() if v in dims})) for a in t.axes]
            texts = axis_texts(t, p.shape)
            # Text in an f-string: a file named `{…}` must not make a hole.
            where = brace_text(f"{base}:{dp.span.line}:{dp.span.col}")
            self.argument(pyname(p.name), where, p.written or str(t), axes, texts)
        for have, want, where, name, written, axes, texts in self.later:
            if all(v in self.bound for v in want.free_vars()):
                expected = ", ".join(self.shown(a, tx) for a, tx in zip(axes, texts))
                self.expect(f"{have} == {self.size(want)}",
                            f"{where}: {name}: expected {brace_text(written)} = ({expected}), "
                            f"got shape {{tuple({name}.shape)}}")

    # -- sizes -----------------------------------------------------------------------
    def size(self, s: Any) -> str:
        return s.to_python(lambda v: self.bound[v])

    def shown(self, a: Any, text: str) -> str:
        """An axis in the expected shape: its size where known, else as written."""
        if getattr(a, "variadic", False):
            return "..."
        s = a.size
        if s.is_const:
            return str(s.const_value)
        if all(v in self.bound for v in s.free_vars()):
            return "{" + self.size(s) + "}"
        return brace_text(text)

    def expect(self, test: str, message: str) -> None:
        self.lines.append(f"_ss_rt.expect_size({test}, lambda: {fstring(message)})")

    def argument(self, name: str, where: str, written: str, axes: list[Any],
                 texts: list[str]) -> None:
        vi = next((j for j, a in enumerate(axes) if getattr(a, "variadic", False)), None)
        expected = ", ".join(self.shown(a, tx) for a, tx in zip(axes, texts))
        if len(axes) == 1:
            expected += ","
        head = f"{where}: {name}: expected {brace_text(written)} = ({expected})"
        got = f"{head}, got shape {{tuple({name}.shape)}}"
        fixed = len(axes) - (1 if vi is not None else 0)
        more = ", or_more=True" if vi is not None else ""
        self.lines.append(f"_ss_rt.expect_rank({name}, {fixed}, lambda: {fstring(head)}{more})")

        def shape(j: int) -> str:
            pos = j if vi is None or j < vi else j - len(axes)
            return f"{name}.shape[{pos}]"

        plain = [(j, a) for j, a in enumerate(axes) if not getattr(a, "variadic", False)]
        # 1. sizes an argument binds, or compared with an earlier binding
        for j, a in plain:
            v = a.size.var_name
            if v is None or v.startswith("?"):
                continue
            if v in self.bound:
                other = self.binder[v]
                message = (f"{where}: {v} is {{{self.bound[v]}}} in {other} but "
                           f"{{{shape(j)}}} in {name}" if other != name else got)
                self.expect(f"{shape(j)} == {self.bound[v]}", message)
            else:
                self.bound[v] = generic_var(v)
                self.binder[v] = name
                self.lines.append(f"{generic_var(v)} = {shape(j)}")
        # 2. ``a*n + c`` solves n when nothing bound it
        solved: set[int] = set()
        for j, a in plain:
            lin = a.size.linear()
            if lin is None or a.size.var_name is not None or lin[0] in self.bound:
                continue
            v, k, c = lin
            rest = f"{shape(j)} - {c}" if c > 0 else f"{shape(j)} + {-c}" if c < 0 else shape(j)
            whole = f"({rest})" if c else rest
            if k != 1:
                self.expect(f"{whole} % {k} == 0",
                            f"{got}: {{{rest}}} is not a multiple of {abs(k)}")
            self.lines.append(f"{generic_var(v)} = {whole} // {k}" if k != 1
                              else f"{generic_var(v)} = {rest}")
            solved.add(j)
            self.bound[v] = generic_var(v)
            self.binder[v] = name
            if c > 0:
                self.expect(f"{generic_var(v)} >= 0", f"{got}: {v} would be {{{generic_var(v)}}}")
        # 3. every other axis
        for j, a in plain:
            s = a.size
            if s.var_name is not None or j in solved:
                continue
            if s.is_const:
                self.expect(f"{shape(j)} == {s.const_value}", got)
            elif any(v.startswith("?") for v in s.free_vars()):
                continue
            elif all(v in self.bound for v in s.free_vars()):
                self.expect(f"{shape(j)} == {self.size(s)}", got)
            else:
                # A size of generics later arguments bind: checked after them.
                self.later.append((shape(j), s, where, name, written, axes, texts))


@dataclass(frozen=True)
class _Axis:
    size: Any
    variadic: bool = False


class FunctionsGen(ModuleGen):
    stmt_gen_class = _Stmts

    def __init__(self, program: Program, sig: FnSig, *, context: str | None,
                 calls: Callable[[CallSite], str | None] | None,
                 returns: Callable[[FnSig, str], str] | None,
                 reserved: Collection[str] = (),
                 fields: Callable[[str, str], str] | None = None,
                 indexed_fields: Callable[[str, str, str], str | None] | None = None) -> None:
        assert program.main is not None, "a modeling file needs a program that checked"
        super().__init__(program.main, program, "never", "never", None, True)
        self.target = sig
        self.context = context
        self.calls = calls
        self.returns = returns
        self.fields = fields
        self.indexed_fields = indexed_fields
        self.inline_dims = False
        env = program.main.env  # (checked above)
        # Names the module's top level holds: the caller's, the context, the dims, the
        # main file's functions (which keep their names unless the caller's take them).
        self.taken: set[str] = set(reserved) | ({context} if context else set())
        self.dim_names = {name: self._fresh(pyname(name)) for name in env.dims}
        self.names: dict[int, str] = {}
        for s in reached_functions(sig, env.fn_data):
            if s.file == env.path:
                self.names[id(s)] = self._fresh(pyname(s.name))
        self.entry: EntryChecks | None = None

    def dim_ref(self, name: str) -> str:
        return self.dim_names.get(name) or pyname(name)

    def field_ref(self, obj: str, name: str) -> str:
        return self.fields(obj, name) if self.fields is not None else super().field_ref(obj, name)

    def indexed_field_ref(self, obj: str, name: str, index: str) -> str | None:
        hook = self.indexed_fields
        return hook(obj, name, index) if hook is not None else None

    def _fresh(self, name: str) -> str:
        out, k = name, 2
        while out in self.taken:
            out, k = f"{name}_{k}", k + 1
        self.taken.add(out)
        return out

    def def_name(self, sig: FnSig) -> str:
        return self.unchecked_ref(sig)

    def unchecked_ref(self, sig: FnSig) -> str:
        name = self.names.get(id(sig))
        if name is None:
            stem = name_from(os.path.splitext(os.path.basename(sig.file))[0])
            name = self.names[id(sig)] = self._fresh(f"{stem}_{sig.name}")
        return name

    def extra_params(self, sig: FnSig) -> list[str]:
        return [self.context] if self.context else []

    def gen_entry(self, sig: FnSig) -> None:
        pass  # no checked entries: the exported function checks its own arguments

    def prelude_lines(self, sig: FnSig) -> list[str]:
        if sig is not self.target:
            return super().prelude_lines(sig)
        # The exported function checks its arguments, binding the sizes it reads.
        checks = EntryChecks(self, sig)
        rest = [ln for ln in super().prelude_lines(sig)
                if not any(ln.startswith(f"{g} = ") for g in checks.bound.values())]
        if not checks.lines:
            return rest
        return [comment(f"The arguments' shapes, as `{sig.name}` declares them.")] + \
            checks.lines + rest

    def assert_check(self, code: str, e: ast.AssertType, res: AssertRes, g: ExprGen) -> str:
        t = res.target
        if not isinstance(t, TensorType) or any(a.variadic for a in t.axes):
            return code  # a tuple, a host value or a rank left open: the checker's word
        sizes, shown = [], []
        for i, a in enumerate(t.axes):
            s = a.size
            unknown = [v for v in s.free_vars() if v.startswith("?")]
            if s.is_const:
                sizes.append(str(s.const_value))
                shown.append(str(s.const_value))
            elif unknown:
                name = (s.var_name or f"?{i}").split("#")[0]
                sizes.append(repr(name if s.var_name else f"?_{i}"))
                shown.append(brace_text(name))
            else:
                py = g.size(s)
                sizes.append(py)
                shown.append("{" + py + "}")
        tup = "(" + ", ".join(sizes) + ("," if len(sizes) == 1 else "") + ")"
        expected = "(" + ", ".join(shown) + ("," if len(shown) == 1 else "") + ")"
        message = f"{brace_text(res.where)}: expected {brace_text(res.written)} = {expected}"
        return f"_ss_rt.expect_shape({code}, {tup}, lambda: {fstring(message)})"

    def reached(self) -> list[FnSig]:
        return reached_functions(self.target, self.cm.env.fn_data)

    def _gen(self, sig: FnSig, decl: Any, body: Emitter) -> None:
        """``sig``'s function, its doc comment as its docstring, into ``body``."""
        if body.lines:
            body.emit(None, 0, "")
            body.emit(None, 0, "")
        start = len(body.lines)
        self.em = body
        self.gen_fn(sig)
        doc = getattr(decl, "doc", None)
        if doc:
            header = next(i for i in range(start, len(body.lines))
                          if body.lines[i].text.startswith(f"def {self.def_name(sig)}("))
            body.lines.insert(header + 1, Line(None, 1, literal(doc)))

    def run(self) -> str:
        env = self.cm.env
        reached = self.reached()
        mine = {id(s) for s in reached}
        body = Emitter()
        for d in env.module.decls:
            if isinstance(d, ast.FnDecl) and d.name in env.fns and id(env.fns[d.name]) in mine:
                self._gen(env.fns[d.name], d, body)
        # The imported files' functions, each file's in its order, its dims as numbers.
        main = self.cm
        for path in dict.fromkeys(s.file for s in reached if s.file != env.path):
            cm = self.program.modules.get(path)
            if cm is None:
                raise AssertionError(f"no checked module for {path}")
            self.cm, self.specs, self.inline_dims = cm, SpecBuilder(cm, self), True
            first = True
            for d in cm.env.module.decls:
                sig = cm.env.fns.get(d.name) if isinstance(d, ast.FnDecl) else None
                if sig is None or id(sig) not in mine:
                    continue
                if first:
                    body.emit(None, 0, "")
                    body.emit(None, 0, "")
                    body.emit(None, 0, comment(f"Of {os.path.basename(path)}, which "
                                               f"{os.path.basename(env.path)} imports."))
                    first = False
                self._gen(sig, d, body)
            self.cm, self.specs, self.inline_dims = main, SpecBuilder(main, self), False
        for ln in body.lines:
            ln.ss_line = None  # one statement a line, not laid out on the .ss lines
        text = body.layout()
        used = set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", text))
        dims = [f"{self.dim_ref(name)} = {value}" for name, value in env.dims.items()
                if self.dim_ref(name) in used]
        head = ["import torch as _ss_torch"]
        if "_ss_einops." in text:
            head.append("import einops as _ss_einops")
        for (mod, fn), alias in self.externs.items():
            head.append(f"from {mod} import {fn} as {alias}")
        parts = ["\n".join(head)]
        if dims:
            parts.append("\n".join(dims))
        parts.append(text.rstrip("\n"))
        names = sorted(set(re.findall(r"_ss_rt\.([A-Za-z_][A-Za-z0-9_]*)", text)))
        if names:
            from shapescript.rt.standalone import helper_source

            parts.append(helper_source(names, prefix="_ss_", namespace="_ss_rt",
                                       import_errors=False).rstrip("\n"))
        return "\n\n\n".join(parts) + "\n"


def generate_functions(program: Program, fn: str, *, context: str | None = None,
                       calls: Callable[[CallSite], str | None] | None = None,
                       returns: Callable[[FnSig, str], str] | None = None,
                       reserved: Collection[str] = (),
                       fields: Callable[[str, str], str] | None = None,
                       indexed_fields: Callable[[str, str, str], str | None] | None = None,
                       ) -> FunctionsModule:
    """The Python source of ``fn`` of ``program.main`` and what it reaches (see the
    module's doc). ``program`` must have checked without errors.

    >>> src = generate_functions(program, "forward").source        # doctest: +SKIP
    """
    main_cm = program.main
    assert main_cm is not None, "a modeling file needs a program that checked"
    sig = main_cm.env.fns.get(fn)
    if sig is None or sig.is_extern:
        raise ValueError(f"no function `{fn}` in {main_cm.env.path}")
    gen = FunctionsGen(program, sig, context=context, calls=calls, returns=returns,
                       reserved=reserved, fields=fields, indexed_fields=indexed_fields)
    source = gen.run()
    main = main_cm.env.path
    names = {(s.name if s.file == main else f"{os.path.basename(s.file)}:{s.name}"):
             gen.unchecked_ref(s) for s in gen.reached()}
    return FunctionsModule(source, names)
