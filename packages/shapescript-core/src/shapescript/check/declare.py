"""The declaration pass: collect a file's names, evaluate dims, build signatures.

Algorithm: (1) walk the top-level declarations once, registering every name
(E0202 twice, E0203 reserved) and loading imported modules through ``load``;
(2) evaluate dims depth-first, a dim on the current path being a cycle (E0301);
(3) turn each ``fn``/``extern fn`` signature and each model's fields into checker
types. Bodies are not looked at here.
"""

from __future__ import annotations

import keyword
from typing import Callable

from shapescript.check.consts import ConstEvaluator, const_literal, size_error
from shapescript.check.env import (
    AxisParam, SizeParam, BUILTIN_FUNCS, CONSTRUCTORS, RESERVED_TYPE_NAMES, FieldInfo, FnSig, ModelInfo,
    ModuleEnv, ParamSig, is_generated_name, reserved_name_error, written_type,
)
from shapescript.check.sizes import Size, SizeTooLarge
from shapescript.check.typeconv import SizeError, TypeBuilder
from shapescript.check.types import ERROR, TensorType
from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript.vocab import DEVICE_PATTERN
from shapescript import error_codes as ec

# load(module_name, importing_path, span) -> ModuleEnv | None (None: reported E0204)
Loader = Callable[[str, str, Span], "ModuleEnv | None"]


def type_text(te: ast.TypeExpr | None, src: str) -> str:
    """The type as written in the source (for messages)."""
    if te is None:
        return ""
    return src[te.span.start:te.span.end] if te.span.end > te.span.start else ""



def is_python_path(target: str) -> bool:
    """Whether an ``extern fn``'s target is ``module.function``: identifiers, not
    keywords, joined by dots. Generated code imports the module and reads the name, so
    nothing else may be pasted into it.

    >>> is_python_path("torch.nn.functional.gelu"), is_python_path("torch.exp; import os")
    (True, False)
    """
    parts = target.split(".")
    return len(parts) >= 2 and all(p.isidentifier() and p.isascii() and not keyword.iskeyword(p)
                                   for p in parts)

def _head_name(d: ast.Decl) -> str | None:
    """The name a declaration's head names, as ``ast.DroppedDecl.names`` reads it."""
    if isinstance(d, (ast.FnDecl, ast.ExternDecl, ast.DimDecl, ast.ConstDecl, ast.ModelDecl)):
        return d.name
    if isinstance(d, (ast.Import, ast.ImportPython)):
        return d.alias or d.module.split(".")[0]
    return None


class Declarer:
    def __init__(self, module: ast.Module, source: str, prelude: ModuleEnv | None,
                 load: Loader) -> None:
        self.env = ModuleEnv(module.path, module, prelude=prelude)
        self.source = source
        self.load = load
        self.seen: dict[str, Span] = {}
        self.dim_state: dict[str, int] = {}  # 1 visiting, 2 done

    def report(self, d: Diagnostic) -> None:
        self.env.diagnostics.append(d)

    def err(self, code: str, msg: str, span: Span, label: str = "", help: str | None = None) -> None:
        self.report(Diagnostic.error(code, msg, span, label, help=help))

    def string_span(self, span: Span, text: str) -> Span:
        """The span of the string literal holding ``text`` at the end of ``span``."""
        k = self.source.rfind('"', span.start, span.end)
        k = self.source.rfind('"', span.start, k) if k > span.start else -1
        if k < 0:
            return span
        line = span.line + self.source.count("\n", span.start, k)
        col = k - (self.source.rfind("\n", 0, k) + 1) + 1
        return Span(span.file, line, col, line, col + len(text) + 2, k, k + len(text) + 2)

    def claim(self, name: str, span: Span, what: str) -> bool:
        if is_generated_name(name):
            msg, label, help_ = reserved_name_error(name)
            self.err(ec.E0203, msg, span, label, help=help_)
            return False
        if name in RESERVED_TYPE_NAMES or name in BUILTIN_FUNCS or name in CONSTRUCTORS:
            self.err(ec.E0203, f"`{name}` is a built-in or reserved name", span,
                     f"this {what} would shadow it", help="choose another name")
            return False
        if name in self.seen:
            first = self.seen[name]
            self.err(ec.E0202, f"`{name}` is defined twice", span, "defined again here",
                     help=f"the first definition is at line {first.line}")
            return False
        self.seen[name] = span
        return True

    # ------------------------------------------------------------------
    def run(self) -> ModuleEnv:
        env = self.env
        for d in env.module.decls:
            if isinstance(d, ast.Devices):
                if not DEVICE_PATTERN.match(d.device):
                    self.err(ec.E0201, f"unknown device `{d.device}`", d.span, "not a device",
                             help="a devices line names one of cpu, cuda, cuda[N], mps")
                    continue
                if env.device is not None and env.device != d.device:
                    self.err(ec.E0202, "the devices line is given twice", d.span,
                             "a second, different device")
                env.device = d.device
            elif isinstance(d, ast.ImportPython):
                local = d.alias or d.module.split(".")[0]
                if self.claim(local, d.span, "import"):
                    env.pymods[local] = d.module if d.alias else d.module.split(".")[0]
            elif isinstance(d, ast.Import):
                local = d.alias or d.module
                sub = self.load(d.module, env.path, d.span)
                if sub is None:
                    env.poisoned.add(local)  # reported (E0204): its uses are silent errors
                elif self.claim(local, d.span, "import"):
                    env.ssmods[local] = sub
            elif isinstance(d, ast.FromImport):
                sub = self.load(d.module, env.path, d.span)
                if sub is None:
                    env.poisoned.update(n.alias or n.name for n in d.names)
                    continue
                env.from_modules.setdefault(sub.path, d.module)
                for n in d.names:
                    if not sub.public(n.name):
                        env.poisoned.add(n.alias or n.name)
                        self.err(ec.E0205, f"`{n.name}` is not public in `{d.module}`", n.span,
                                 "no such public name",
                                 help="public names are top-level names not starting with `_`")
                        continue
                    local = n.alias or n.name
                    if self.claim(local, n.span, "import"):
                        env.imported[local] = (sub, n.name)
            elif isinstance(d, ast.DimDecl):
                if self.claim(d.name, d.name_span, "dim"):
                    if d.shape is not None:
                        env.aliases[d.name] = d
                    else:
                        env.dim_decls[d.name] = d
            elif isinstance(d, ast.ConstDecl):
                if self.claim(d.name, d.name_span, "const"):
                    env.const_decls[d.name] = d
            elif isinstance(d, (ast.FnDecl, ast.ExternDecl)):
                self.claim(d.name, d.name_span, "function")
            elif isinstance(d, ast.ModelDecl):
                if self.claim(d.name, d.name_span, "model"):
                    env.models[d.name] = ModelInfo(d.name, env.path, d, env=env)
        self.poison_broken()
        # Consts first: one may use a dim (evaluated on demand); a dim can't use a const
        # (E0306, which then shows the const's value).
        ConstEvaluator(env, self.report, self.dim).run()
        for name in env.dim_decls:
            self.dim(name)
        for d in env.module.decls:
            if isinstance(d, (ast.FnDecl, ast.ExternDecl)) and d.name not in env.fns:
                if self.seen.get(d.name) == d.name_span:
                    env.fns[d.name] = self.signature(d)
        for info in env.models.values():
            self.model_fields(info)
        return env

    def poison_broken(self) -> None:
        """The names of top-level declarations that declared nothing: those the parser
        dropped (``Module.dropped``: a syntax error, reported) and those refused here (a
        reserved name, reported): their uses are silent errors, not "unknown name"
        cascades."""
        module = self.env.module
        names = [name for d in module.dropped for name in d.names]
        names += [n for n in map(_head_name, module.decls) if n is not None]
        for name in names:
            if name and name not in self.seen:
                self.env.poisoned.add(name)

    # ------------------------------------------------------------------
    def dim(self, name: str) -> int | None:
        env = self.env
        if name in env.dims:
            return env.dims[name]
        decl = env.dim_decls.get(name)
        if decl is None:
            return env.dim_size(name)
        state = self.dim_state.get(name)
        if state == 1:
            self.err(ec.E0301, f"the dims form a cycle through `{name}`", decl.name_span,
                     f"`{name}` depends on itself")
            self.dim_state[name] = 2
            return None
        if state == 2:
            return env.dims.get(name)
        self.dim_state[name] = 1
        assert decl.size is not None
        value = self.eval_dim(decl.size, decl)
        self.dim_state[name] = 2
        if value is not None:
            if value < 0:
                self.err(ec.E0302, f"dim `{name}` is {value}, not a whole number ≥ 0",
                         decl.size.span, f"this is {value}")
            else:
                env.dims[name] = value
        if name not in env.dims:
            env.poisoned.add(name)  # reported: its uses are silent errors, not generics
        return env.dims.get(name)

    def eval_dim(self, e: ast.SizeExpr, decl: ast.DimDecl) -> int | None:
        try:
            s = self._dim_size(e)
        except SizeError:
            return None
        except SizeTooLarge as err:
            self.err(err.code, err.message, e.span, err.label, help=err.help)
            return None
        if s is None:
            return None
        assert s.is_const
        return s.const_value

    def _dim_size(self, e: ast.SizeExpr) -> Size | None:
        if isinstance(e, ast.SizeInt):
            return Size.const(e.value)
        if isinstance(e, ast.SizeName):
            if e.module is not None:
                sub = self.env.ssmods.get(e.module)
                v = None if sub is None else sub.dims.get(e.name)
            elif e.name in self.env.dim_decls:
                v = self.dim(e.name)
                if v is None:
                    raise SizeError
            else:
                v = self.env.dim_size(e.name)
            if v is None and (e.name in self.env.poisoned or e.module in self.env.poisoned):
                raise SizeError  # a failed import, already reported
            if v is None and self.env.is_const(e.name, e.module):
                self.report(size_error(f"{e.module}.{e.name}" if e.module else e.name,
                                       self.env.const_value(e.name, e.module), e.span))
                raise SizeError
            if v is None:
                self.err(ec.E0201, f"unknown dim `{e.name}`", e.span, "not a dim",
                         help="a dim's size may use only numbers and other dims")
                raise SizeError
            return Size.const(v)
        if isinstance(e, ast.SizeBin):
            a, b = self._dim_size(e.left), self._dim_size(e.right)
            assert a is not None and b is not None
            if e.op == "+":
                return a + b
            if e.op == "-":
                return a - b
            if e.op == "*":
                return a * b
            if b.const_value == 0:
                self.err(ec.E0302, "division by zero in a dim", e.span, "this divides by 0")
                raise SizeError
            return a.floordiv(b)
        if isinstance(e, ast.SizeProd):
            s = Size.const(1)
            for item in e.items:
                factor = self._dim_size(item)
                assert factor is not None
                s = s * factor
            return s
        self.err(ec.E0304, "not a size expression", e.span, "a dim's size is a whole number")
        raise SizeError

    # ------------------------------------------------------------------
    def one_of(self, d: ast.ExternDecl, params: list[ParamSig]) -> tuple[str, ...]:
        """The names of ``with a or b``, each an optional parameter (E0416 otherwise)."""
        optional = {p.name for p in params if isinstance(p.default, ast.NoneLit)}
        out = []
        for name, span in d.one_of:
            if name not in optional:
                self.err(ec.E0416, f"`with` names `{name}`, which is not a parameter whose "
                         "default is `none`", span, "not an optional parameter",
                         help="`with a or b` names the optional parameters a call must give "
                              "at least one of: give each the default `none`")
            elif name not in out:
                out.append(name)
        return tuple(out) if len(out) == len(d.one_of) else ()

    def signature(self, d: ast.FnDecl | ast.ExternDecl) -> FnSig:
        generics: set[str] = set()
        tb = TypeBuilder(self.env, self.report, generics=generics)
        params: list[ParamSig] = []
        names: set[str] = set()
        for p in d.params:
            if p.name in names:
                self.err(ec.E0202, f"parameter `{p.name}` is defined twice", p.span,
                         "defined again here", help="give each parameter its own name")
            names.add(p.name)
            if is_generated_name(p.name):
                msg, label, help_ = reserved_name_error(p.name)
                self.err(ec.E0203, msg, p.span, label, help=help_)
            if _is_size_param(d, p):
                # `n: Size` names a generic of its own signature: the argument is its size.
                generics.add(p.name)
                t = SizeParam(p.name)
            else:
                t = tb.type(p.type) if p.type is not None else None  # type: ignore[assignment]
            default = p.default
            if isinstance(d, ast.ExternDecl) and default is not None:
                # An extern's default is passed by every call, in the caller's module:
                # a const there is its value.
                default = const_literal(self.env, default) or default
            params.append(ParamSig(p.name, t, p.span, default, type_text(p.type, self.source),
                                   written_type(p.type, self.env, self.source)))
        determined = _determined(params)
        in_axes = _axis_vars(params)
        # A parameter whose type failed (already reported) may be the one that would
        # have determined a generic: no E0303 then, so one mistake gives one diagnostic.
        params_failed = tb.failed
        if params_failed:
            determined |= generics
        undetermined = sorted(generics - determined)
        if undetermined:
            # One diagnostic per signature, naming every such generic.
            listed = " and ".join(f"`{n}`" for n in undetermined) if len(undetermined) <= 2 \
                else ", ".join(f"`{n}`" for n in undetermined[:-1]) + f" and `{undetermined[-1]}`"
            plural = len(undetermined) > 1
            where = ("inside a product or an expression" if any(n in in_axes for n in undetermined)
                     else "in an `Index` bound")
            self.err(ec.E0303, f"no parameter determines the generic{'s' if plural else ''} {listed}",
                     d.name_span, f"{listed} appear{'' if plural else 's'} only {where}",
                     help=f"give {'each' if plural else listed} an axis of its own in a parameter, "
                          "or make it a dim")
        bad = set(generics) - determined
        ret = tb.type(d.ret) if d.ret is not None else None
        if isinstance(d, ast.FnDecl) and isinstance(ret, TensorType) and d.ret is not None:
            for ax in ret.axes:
                free = {v for v in ax.size.free_vars() if not v.startswith("?")} if not ax.variadic else set()
                missing = sorted(free - determined - bad)
                if missing:
                    if not params_failed:
                        self.err(ec.E0303, f"no parameter determines the size `{missing[0]}` of the return type",
                                 d.ret.span, f"`{missing[0]}` is not in any parameter",
                                 help="a return size must come from the parameters; "
                                      "use a `?` size for a data-dependent one")
                    ret = ERROR  # reported: returns and calls aren't checked against it
                    break
        if isinstance(d, ast.ExternDecl) and not is_python_path(d.target):
            self.err(ec.E1004, f"the extern's target `{d.target}` is not a dotted Python path",
                     self.string_span(d.span, d.target), "not `module.function`",
                     help="name a function by its module and name, e.g. `\"torch.exp\"`")
        sig = FnSig(d.name, self.env.path, d, params, ret, frozenset(generics),  # type: ignore[arg-type]
                    extern=d.target if isinstance(d, ast.ExternDecl) else None,
                    export=isinstance(d, ast.FnDecl) and d.export, module=self.env,
                    ret_written=written_type(d.ret, self.env, self.source))
        if isinstance(d, ast.ExternDecl) and d.one_of:
            sig.one_of = self.one_of(d, params)
        for p in d.params:
            if _is_size_param(d, p) and self.env.dim_size(p.name) is None:
                continue
            if p.name in generics or self.env.dim_size(p.name) is not None:
                what = "dim" if p.name not in generics else "generic axis"
                self.err(ec.E0203, f"parameter `{p.name}` shadows a {what}",
                         p.span, "same name as an axis", help="rename the parameter")
        return sig

    def model_fields(self, info: ModelInfo) -> None:
        for f in info.decl.fields:
            if f.name in info.fields or f.name in info.failed:
                self.err(ec.E0202, f"field `{f.name}` is defined twice", f.span,
                         "defined again here", help="give each field its own name")
                continue
            generics: set[str] = set()
            tb = TypeBuilder(self.env, self.report, generics=generics)
            t = tb.type(f.type)
            info.failed.add(f.name)  # until it checks
            if generics:
                self.err(ec.E0902, f"the type of `{f.name}` is not static", f.type.span,
                         f"`{sorted(generics)[0]}` is not a dim",
                         help="a param's axes are dims and literals")
                continue
            if not isinstance(t, TensorType):
                if t is not ERROR:
                    self.err(ec.E0902, f"`{f.name}` must be a tensor with a static shape", f.type.span,
                             "not a tensor type", help="a param is a tensor, e.g. `[D]`")
                continue
            if t.has_variadic:
                self.err(ec.E0902, f"the type of `{f.name}` is not static", f.type.span,
                         "`...` has no fixed rank", help="a param's axes are dims and literals")
                continue
            info.failed.discard(f.name)
            info.fields[f.name] = FieldInfo(f.name, t, f, written_type(f.type, self.env, self.source))


def _is_size_param(d: ast.FnDecl | ast.ExternDecl, p: ast.Param) -> bool:
    """``n: Size`` in a ``fn``: a whole number that is the size of the generic ``n``."""
    return (isinstance(d, ast.FnDecl) and isinstance(p.type, ast.NamedTypeExpr)
            and p.type.name == "Size")


def _determined(params: list[ParamSig]) -> set[str]:
    """Generics bound by a parameter: a bare axis, or a linear form in one generic."""
    out: set[str] = set()
    for p in params:
        if isinstance(p.type, TensorType):
            for ax in p.type.axes:
                if ax.variadic:
                    continue
                lin = ax.size.linear()
                if lin is not None:
                    out.add(lin[0])
        elif isinstance(p.type, (AxisParam, SizeParam)):
            out.add(p.type.name)
    return out


def _axis_vars(params: list[ParamSig]) -> set[str]:
    """Every name that occurs in a parameter's axis sizes."""
    out: set[str] = set()
    for p in params:
        if isinstance(p.type, TensorType):
            for ax in p.type.axes:
                if not ax.variadic:
                    out |= ax.size.free_vars()
    return out


def declare(module: ast.Module, source: str, prelude: ModuleEnv | None, load: Loader) -> ModuleEnv:
    """Build the environment of one parsed file (diagnostics in ``env.diagnostics``)."""
    return Declarer(module, source, prelude, load).run()
