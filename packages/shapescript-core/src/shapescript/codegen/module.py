"""A checked file to the source of a Python module.

Layout of the generated module (each piece on its ``.ss`` line where it has one):

- line 1: the imports (torch as ``_ss_torch``, einops, the runtime, the externs' Python
  functions, the user's ``import python`` modules) and the file's device line;
- each ``dim`` as a module constant, each ``model`` as an ``nn.Module`` class;
- each ``fn`` as ``_unchecked_<name>``, the body ShapeScript calls;
- after the last ``.ss`` line: the argument specs, the checkers built from them once
  at import, and the checked entry ``<name>``, which Python calls.
"""

from __future__ import annotations

import os
from typing import Any

from shapescript.check.env import AxisParam, FnSig, ModelInfo, SizeParam
from shapescript.check.payloads import Payload
from shapescript.check.result import AssertRes, CheckedModule, Program
from shapescript.check.types import ModelType, PyType, TensorType, TupleType
from shapescript.codegen.exprs import T, ExprGen, generic_var, pyname
from shapescript.codegen.keepdim import keepdim_sites
from shapescript.codegen.layout import Emitter
from shapescript.codegen.pytext import attribute, keyword_arg, literal
from shapescript.codegen.specs import SpecBuilder
from shapescript.codegen.stmts import StmtGen
from shapescript.syntax import ast


def mode_expr(mode: str) -> str:
    """A checks mode as a Python condition: always, debug (``__debug__``) or never."""
    return {"always": "True", "debug": "__debug__", "never": "False"}[mode]


class ModuleGen:
    # Hooks for other code generation modes (codegen/traced.py): the statement
    # generator class, and the name each function body is defined under.
    stmt_gen_class = StmtGen

    def def_name(self, sig: FnSig) -> str:
        return "_unchecked_" + sig.name

    def __init__(self, cm: CheckedModule, program: Program, checks: str, value_checks: str,
                 devices: str | None, standalone: bool) -> None:
        self.cm = cm
        self.program = program
        self.checks = checks
        self.value_checks = value_checks
        self.devices = devices
        self.standalone = standalone
        self.em = Emitter()
        self.imports: dict[str, str] = {}  # import line → alias (ordered)
        self.externs: dict[tuple[str, str], str] = {}
        self.tail: list[str] = []  # module code after the last .ss line
        self.specs = SpecBuilder(cm, self)
        self.as_count = 0
        self.fn: FnSig | None = None
        self.fn_generics: set[str] = set()
        self.fn_device = False
        self.basename = os.path.basename(cm.env.path)

    # -- context for expression generation ------------------------------------------
    def need_generic(self, name: str) -> None:
        self.fn_generics.add(name)

    def device_expr(self) -> str:
        self.fn_device = True
        return "_ss_dev"

    def pymod(self, local: str, module: str) -> str:
        return pyname(local)

    def ssmod(self, local: str) -> str:
        return "_ss_m_" + local

    def einops(self) -> str:
        return "_ss_einops"

    def rt_helper(self, name: str) -> str:
        return f"_ss_rt.{name}"

    def fn_ref(self, sig: FnSig) -> str:
        if sig.is_extern:
            return self.extern_ref(sig)
        return self.unchecked_ref(sig)

    def unchecked_ref(self, sig: FnSig) -> str:
        if sig.file == self.cm.env.path:
            return "_unchecked_" + sig.name
        return f"{self.module_alias(sig)}._unchecked_{sig.name}"

    def module_alias(self, sig: FnSig) -> str:
        for local, env in self.cm.env.ssmods.items():
            if env.path == sig.file:
                return self.ssmod(local)
        return self.imported_module_alias(sig.file)

    def imported_module_alias(self, path: str) -> str:
        """The alias of the module a ``from m import x`` brought ``x`` from."""
        module = self.cm.env.from_modules.get(path)
        if module is None:
            raise AssertionError(f"no module for {path}")
        return "_ss_m_" + module.replace(".", "_")

    def extern_ref(self, sig: FnSig) -> str:
        target = sig.extern or ""
        mod, _, fn = target.rpartition(".")
        if mod == "shapescript.rt":
            # Through the runtime's namespace, which standalone output defines inline.
            return f"_ss_rt.{fn}"
        key = (mod, fn)
        if key not in self.externs:
            alias = f"_ss_x_{fn}" if f"_ss_x_{fn}" not in self.externs.values() else f"_ss_x{len(self.externs)}_{fn}"
            self.externs[key] = alias
        return self.externs[key]

    def dim_ref(self, name: str) -> str:
        return pyname(name)

    def field_ref(self, obj: str, name: str) -> str:
        return attribute(obj, name)

    def indexed_field_ref(self, obj: str, name: str, index: str) -> str | None:
        return None

    def model_ref(self, info: ModelInfo) -> str:
        if info.file == self.cm.env.path:
            return pyname(info.name)
        for local, env in self.cm.env.ssmods.items():
            if env.path == info.file:
                return f"{self.ssmod(local)}.{pyname(info.name)}"
        return f"{self.imported_module_alias(info.file)}.{pyname(info.name)}"

    def model_ref_type(self, t: "ModelType") -> str:
        env = self.cm.env
        if t.module == env.path:
            return pyname(t.name)
        for local, sub in env.ssmods.items():
            if sub.path == t.module:
                return f"{self.ssmod(local)}.{pyname(t.name)}"
        info = env.model(t.name)
        return self.model_ref(info) if info is not None else t.name

    def default_value(self, node: ast.Expr) -> str:
        return ExprGen(self.cm, self).expr(node)

    def assert_check(self, code: str, e: ast.AssertType, res: AssertRes, g: ExprGen) -> str:
        if _holds_python(self.cm.types.get(e.value)) and _holds_tensors(res.target):
            # Where a Python value enters the program: a host tensor moves to the
            # program's device (counted), whatever the checks; nothing else ever moves.
            code = f"{self.rt_helper('from_host')}({code})"
        if self.checks == "never" and self.value_checks == "never":
            return code
        self.as_count += 1
        name = f"_ss_as_{self.as_count}"
        target = res.target
        if isinstance(target, TupleType):
            # One checker per element, and a function that checks the tuple's length.
            n = len(target.items)
            parts = []
            for i, item in enumerate(target.items):
                shape = res.shape.items[i] if i < len(res.shape.items) else res.shape
                sub = AssertRes(item, res.on_python, shape.text, res.where, shape)
                spec = self.specs.as_spec(e, sub)
                self.tail.append(f"{name}_{i} = _ss_rt.make_as_checker({spec})")
                parts.append(f"{name}_{i}(_v[{i}], _e, _c, _vc)")
            checked = f"({', '.join(parts)},)"
            shared = _shared_unknowns(target)
            if shared:
                # One `?k` in several elements is one size: checked once each is.
                checked = (f"{self.rt_helper('same_unknowns')}({checked}, {shared!r}, "
                           f"{res.where!r}) if _c else {checked}")
            self.tail += [
                f"def {name}(_v, _e, _c, _vc):",
                f"    if _c and (not isinstance(_v, (tuple, list)) or len(_v) != {n}):",
                f"        raise TypeError({res.where!r} + ': expected a tuple of {n}, got ' + type(_v).__name__)",
                f"    return {checked}",
            ]
        else:
            spec = self.specs.as_spec(e, res)
            self.tail.append(f"{name} = _ss_rt.make_as_checker({spec})")
        generics = self.specs.generics_in(res.target)
        env = "{" + ", ".join(f"{k!r}: {self.gen_generic(k)}" for k in sorted(generics)) + "}"
        return f"{name}({code}, {env}, {mode_expr(self.checks)}, {mode_expr(self.value_checks)})"

    def checks_extern(self, sig: FnSig) -> bool:
        """Whether calls of ``sig`` check its result: externs the program declares, not
        the prelude's (their declarations are tested against torch, and checking them
        would cost every model's forward pass), unless checks are off."""
        from shapescript.check.env import PRELUDE_FILES

        return self.checks != "never" and sig.extern is not None and sig.file not in PRELUDE_FILES

    def extern_result_check(self, code: str, e: ast.Call, res: Any, g: ExprGen) -> str:
        """An extern's result, checked against its declared type in the caller's terms:
        a Python function can return any shape, and from here on the types are trusted."""
        from shapescript.check.types import TensorType

        sig = res.sig
        t = self.cm.types.get(e)
        if sig is None or not isinstance(t, TensorType) or not self.checks_extern(sig):
            return code
        self.as_count += 1
        name = f"_ss_as_{self.as_count}"
        where = self.specs.where(e.span)
        # An `as` spec: its message starts with its `where`, which names the call.
        spec = self.specs.tensor_spec("", f"{where}: result of {sig.name}", str(sig.ret), t,
                                      None)
        self.tail.append(f"{name} = _ss_rt.make_as_checker({spec})")
        generics = self.specs.generics_in(t)
        env = "{" + ", ".join(f"{k!r}: {self.gen_generic(k)}" for k in sorted(generics)) + "}"
        return f"{name}({code}, {env}, {mode_expr(self.checks)}, {mode_expr(self.value_checks)})"

    def gen_generic(self, name: str) -> str:
        self.need_generic(name)
        return generic_var(name)

    def training_builtin(self, name: str, e: ast.Call, data: Payload, g: ExprGen) -> str:
        from shapescript.codegen.training import gen_training

        return gen_training(self, name, e, data, g)

    # -- the module ---------------------------------------------------------------------
    def run(self) -> str:
        env = self.cm.env
        body = Emitter()
        self.em = body
        for d in env.module.decls:
            if isinstance(d, ast.DimDecl) and d.size is not None and d.name in env.dims:
                body.emit(d.span.line, 0, f"{self.dim_ref(d.name)} = {env.dims[d.name]}")
            elif isinstance(d, ast.ConstDecl) and d.name in env.consts:
                # A module attribute for Python; ShapeScript code reads the value inline.
                body.emit(d.span.line, 0, f"{pyname(d.name)} = {literal(env.consts[d.name])}")
            elif isinstance(d, ast.ImportPython):
                local = d.alias or d.module.split(".")[0]
                if d.alias:
                    self.imports[f"import {d.module} as {pyname(d.alias)}"] = local
                else:
                    self.imports[f"import {d.module}"] = local
            elif isinstance(d, ast.Import):
                local = d.alias or d.module
                self.imports[f"import {d.module} as {self.ssmod(local)}"] = local
            elif isinstance(d, ast.FromImport):
                # Imported names are reached through the module: aliases and dims have
                # no run-time value of their own (dims are inlined as numbers).
                self.imports.setdefault(f"import {d.module} as _ss_m_{d.module.replace('.', '_')}", d.module)
            elif isinstance(d, ast.ModelDecl):
                from shapescript.codegen.models import gen_model

                gen_model(self, d)
            elif isinstance(d, ast.FnDecl) and d.name in env.fns:
                self.gen_fn(env.fns[d.name])
        for sig in env.fns.values():
            if sig.is_extern:
                self.gen_extern_entry(sig)
        head = ["import torch as _ss_torch", "import einops as _ss_einops"]
        if not self.standalone:
            head.append("from shapescript import rt as _ss_rt")
        head += list(self.imports)
        for (mod, fn), alias in self.externs.items():
            head.append(f"from {mod} import {fn} as {alias}")
        if any(isinstance(d, ast.Import) or isinstance(d, ast.FromImport) for d in env.module.decls):
            head.insert(0, "import shapescript as _ss; _ss.install()")
        tail = list(self.tail)
        if self.devices is not None:
            tail.insert(0, f"_ss_rt.devices({literal(self.devices)})")
        if env.device is not None:
            tail.insert(0, f"_ss_rt.declare_module_device({literal(self.basename)}, "
                           f"{literal(env.device)})")
        # The imports go on line 1, unless a `def` sits there: no statement may precede a
        # compound one on its line, so they go after the bodies, which use them only when
        # called (a `class` there keeps line 1's imports and moves down one line instead).
        first = body.lines[0] if body.lines else None
        late = first is not None and first.ss_line == 1 and not first.simple \
            and first.text.startswith("def ")
        final = Emitter()
        if not late:
            final.emit(1, 0, "; ".join(head))
        final.lines += body.lines
        if late:
            final.emit(None, 0, "; ".join(head))
        if self.standalone:
            helpers = self.standalone_helpers(final.layout() + "\n".join(tail))
            final.emit(None, 0, "")
            final.emit(None, 0, "# The ShapeScript runtime helpers this module uses, inlined.")
            for line in helpers.splitlines():
                final.emit(None, 0, line)
        for line in tail:
            final.emit(None, 0, line)
        return final.layout()

    def standalone_helpers(self, text: str) -> str:
        """The source of the runtime helpers ``text`` calls as ``_ss_rt.NAME``."""
        import re

        from shapescript.rt.standalone import helper_source

        names = sorted(set(re.findall(r"_ss_rt\.([A-Za-z_][A-Za-z0-9_]*)", text)))
        return helper_source(names, prefix="_ss_", namespace="_ss_rt")

    # -- functions ----------------------------------------------------------------------
    def extra_params(self, sig: FnSig) -> list[str]:
        """Parameters a code generation mode puts before the function's own (none here;
        codegen/functions.py passes its context to every body)."""
        return []

    def gen_fn(self, sig: FnSig) -> None:
        decl = sig.decl
        assert isinstance(decl, ast.FnDecl)
        self.fn = sig
        self.fn_generics = set()
        self.fn_device = False
        params = ", ".join(self.extra_params(sig) + [self.param_text(p) for p in decl.params])
        header_line = decl.span.line
        sub = Emitter()
        saved = self.em
        self.em = sub
        g = self.stmt_gen_class(self.cm, self, sub)
        if getattr(self, "calls", None) is None:
            # A `calls` hook may rewrite a reduction, so its keepdim can't be relied on.
            g.keepdims = keepdim_sites(self.cm, decl)
        if isinstance(decl.body, tuple):
            g.block(decl.body, 1)
        else:
            sub.emit(decl.body.span.line, 1, "return " + g.expr(decl.body))
        self.em = saved
        pre = self.prelude_lines(sig)
        if decl.ret is None and isinstance(decl.body, tuple) and sig.ret is None:
            # A function that returns nothing is host code (`main`, a training loop): it
            # builds no autograd graph, so a value it prints has no `grad_fn` and memory
            # doesn't grow with the steps; `value_and_grad` turns gradients back on.
            self.em.emit(header_line, 0, "@_ss_torch.no_grad()", simple=False)
        self.em.emit(header_line, 0, f"def {self.def_name(sig)}({params}):", simple=False)
        if pre:
            first = sub.lines[0].ss_line if sub.lines else header_line + 1
            for text in pre:
                self.em.emit(first, 1, text)
        self.em.lines += sub.lines
        self.gen_entry(sig)
        self.fn = None

    def param_text(self, p: ast.Param) -> str:
        if p.default is None:
            return pyname(p.name)
        return f"{pyname(p.name)}={ExprGen(self.cm, self).expr(p.default)}"

    def prelude_lines(self, sig: FnSig) -> list[str]:
        """Generic sizes and the device, read from the arguments where the body needs them."""
        lines = []
        for name in sorted(self.fn_generics):
            lines.append(f"{generic_var(name)} = {self.specs.generic_source(sig, name)}")
        if self.fn_device:
            lines.append(f"_ss_dev = {self.specs.device_source(sig)}")
        return lines

    def gen_entry(self, sig: FnSig) -> None:
        decl = sig.decl
        params = ", ".join(self.param_text(p) for p in decl.params)
        names = [pyname(p.name) for p in decl.params]
        call = f"_unchecked_{sig.name}({', '.join(names)})"
        self.tail += self.entry_code(sig, params, names, call)

    def entry_code(self, sig: FnSig, params: str, names: list[str], call: str) -> list[str]:
        specs = self.specs.arg_specs(sig)
        lines = []
        checks_on, values_on = mode_expr(self.checks), mode_expr(self.value_checks)
        check = None
        if specs is not None and (self.checks != "never" or self.value_checks != "never"):
            lines.append(f"_ss_check_{sig.name} = _ss_rt.make_checker({specs})")
            tup = "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"
            check = f"_ss_check_{sig.name}({tup}, {checks_on}, {values_on})"
        lines.append(f"def {pyname(sig.name)}({params}):")
        doc = sig.decl.doc
        if doc:
            lines.append(f"    {literal(doc)}")
        lines += self.wrap_host_args(sig, names)
        if check is not None:
            if self.checks == "debug" and self.value_checks in ("debug", "never"):
                lines.append(f"    if __debug__: {check}")
            else:
                lines.append(f"    {check}")
        lines.append(f"    return {call}")
        return lines

    def wrap_host_args(self, sig: FnSig, names: list[str]) -> list[str]:
        """A Python number for a ``[]`` parameter becomes a 0-d tensor."""
        from shapescript.check.types import TensorType
        from shapescript.codegen.names import dtype_expr

        out = []
        for p, n in zip(sig.params, names):
            t = p.type
            if isinstance(t, TensorType) and not t.axes:
                dt = t.dtype if t.dtype not in ("Float", "Int") else "f32"
                out.append(f"    if not isinstance({n}, {T}.Tensor): {n} = {T}.as_tensor({n}, "
                           f"dtype={dtype_expr(dt)})")
        return out

    def gen_extern_entry(self, sig: FnSig) -> None:
        decl = sig.decl
        if sig.file != self.cm.env.path:
            return
        # The signature's defaults: a const there is already its value (check.consts).
        params = ", ".join(f"{pyname(p.name)}={ExprGen(self.cm, self).expr(p.default)}"
                           if p.default is not None else pyname(p.name) for p in sig.params)
        names = [pyname(p.name) for p in decl.params]
        target = self.extern_ref(sig)
        parts = []
        for p, n in zip(sig.params, names):
            parts.append(keyword_arg(p.name, n) if p.default is not None else n)
        call = f"{target}({', '.join(parts)})"
        self.tail.append(f"_unchecked_{sig.name} = {target}")
        lines = self.entry_code(sig, params, names, call)
        ret = sig.ret
        from shapescript.check.types import TensorType

        if isinstance(ret, TensorType) and self.checks_extern(sig) and lines[-1].startswith("    return "):
            # The result against the declared type, with the arguments' bindings.
            spec = self.specs.tensor_spec("", f"{self.specs.where(sig.decl.span)}: result of {sig.name}",
                                          sig.ret_written.text, ret, sig.ret_written)
            self.tail.append(f"_ss_ret_{sig.name} = _ss_rt.make_as_checker({spec})")
            env = "{}"
            for i, line in enumerate(lines):
                if line.lstrip().startswith(f"_ss_check_{sig.name}(") or \
                        line.lstrip().startswith(f"if __debug__: _ss_check_{sig.name}("):
                    lines[i] = line.replace(f"_ss_check_{sig.name}(", f"_ss_e = _ss_check_{sig.name}(", 1)
                    env = "_ss_e" if "if __debug__" not in line else "{}"
            lines[-1] = (f"    return _ss_ret_{sig.name}({call}, {env}, {mode_expr(self.checks)}, "
                         f"{mode_expr(self.value_checks)})")
        self.tail += lines


def generate(cm: CheckedModule, program: Program, *, checks: str = "always",
             value_checks: str = "debug", devices: str | None = None,
             standalone: bool = False) -> str:
    """The Python source of the checked module ``cm`` (laid out on its ``.ss`` lines)."""
    for mode in (checks, value_checks):
        if mode not in ("always", "debug", "never"):
            raise ValueError(f"checks mode must be always, debug or never, not {mode!r}")
    return ModuleGen(cm, program, checks, value_checks, devices, standalone).run()


__all__ = ["generate", "AxisParam", "SizeParam"]


def _shared_unknowns(t: TupleType) -> tuple[tuple[str, tuple[tuple[int, int], ...]], ...]:
    """The unknowns (``?k``) a tuple type gives more than one axis, with their
    ``(element, axis)`` positions (an axis after a ``...`` counted from the end)."""
    at: dict[str, list[tuple[int, int]]] = {}
    for i, item in enumerate(t.items):
        if not isinstance(item, TensorType):
            continue
        vi = next((k for k, a in enumerate(item.axes) if a.variadic), None)
        for j, a in enumerate(item.axes):
            u = None if a.variadic else a.size.var_name
            if u is not None and u.startswith("?"):
                pos = j - len(item.axes) if vi is not None and j > vi else j
                at.setdefault(u.partition("#")[0].lstrip("?"), []).append((i, pos))
    return tuple((u, tuple(p)) for u, p in sorted(at.items()) if len(p) > 1)


def _holds_python(t: Any) -> bool:
    """Whether a value of type ``t`` is, or holds, a Python value: ``x``, ``(x, y)``."""
    if isinstance(t, PyType):
        return True
    return isinstance(t, TupleType) and any(_holds_python(item) for item in t.items)


def _holds_tensors(t: Any) -> bool:
    """Whether an ``as`` to ``t`` gives a tensor (or a tuple holding one): the values a
    host tensor can be."""
    if isinstance(t, TensorType):
        return True
    return isinstance(t, TupleType) and any(_holds_tensors(item) for item in t.items)
