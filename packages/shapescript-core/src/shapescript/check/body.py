"""Checking function bodies, and a whole file: ``check_module``.

Each ``fn`` body is checked once, generically: its generic axes are symbols. While
checking, each body records the functions it calls and the sites that an exported
program can't contain (Python, host-only operations …); ``check.exports`` then walks
the call graph from every ``export fn`` and reports those sites (E17xx).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import count
from typing import Any

from shapescript.gc_pause import paused_gc
from shapescript.check.declare import Loader, declare
from shapescript.check.env import AxisParam, FnSig, ModuleEnv, SizeParam
from shapescript.check.exprs import ExprChecker
from shapescript.check.fail import Fail
from shapescript.check.pattern_results import RuntimeCheck
from shapescript.check.resolutions import FieldInit
from shapescript.check.roles import roles_of
from shapescript.check.sizes import Size
from shapescript.check.result import CheckedModule, ExportSites, FnResult
from shapescript.check.scope import Scope, Var
from shapescript.check.stmts import StmtChecker
from shapescript.check.types import ERROR, Axis, HostType, ModelType, PyType, TensorType, TupleType, Type
from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript import error_codes as ec


class BodyChecker:
    """Checks one function body (or a model's field initialisers) in one file.

    It holds what the body's parts share: the scope, the records (``types``, ``res``),
    the sizes the body learns, and the sites the export rules read. Its parts are
    objects it owns: ``exprs`` types expressions (and owns ``exprs.calls``, the
    checker of ``fn`` calls); ``stmts`` checks statements and control flow."""

    def __init__(self, env: ModuleEnv, sig: FnSig | None, cm: CheckedModule) -> None:
        self.env = env
        self.sig = sig
        self.cm = cm
        self.source = cm.source
        self.types = cm.types
        self.res = cm.res
        self.scope = Scope()
        self.used_generics: set[str] = set()
        self.max_sizes: dict[str, int] = {}  # generic → its bound from run-time checks
        # Generic → the size a pattern's keyword pins it to (`a=2` on a generic `p`: the
        # call raises unless `p` is 2), with where; see ``fixed_sizes``.
        self.pinned: list[tuple[str, int, Span]] = []
        # Each `map`'s lambda: (its span, its parameter, the count), for indices by it.
        self.map_params: list[tuple[Any, str, Any]] = []
        self.callees: list[FnSig] = []
        self.events: list[tuple[str, Span, str, str]] = []
        self.map_sites: list[tuple[ast.Call, Any]] = []
        self.range_loops: list[ast.For] = []
        self.extern_sites: list[tuple[str, Span, str, str]] = []
        # The branches a known condition rules out (``if tied:`` on a const): checked for
        # types, but not held to the export rules (check/known.py).
        self.dead_spans: list[Span] = []
        # Numbers the fresh sizes this body makes (``?k#3``): per checker, so a body's
        # result never depends on what the process checked before it.
        self._ids = count(1)
        self.roles = roles_of(env)
        # The names patterns wrote for axes (local roles) → what each matched, as a label.
        self.local_roles: dict[str, Size] = {}
        self.local_sizes: dict[str, Size] = {}
        # Each group a pattern split, by its members' roles: their order.
        self.split_orders: dict[frozenset, tuple[Size, ...]] = {}
        self.exprs = ExprChecker(self)
        self.stmts = StmtChecker(self)

    # -- plumbing ---------------------------------------------------------------
    def report(self, d: Diagnostic) -> None:
        self.cm.diagnostics.append(d)

    def fail(self, f: Fail, node: Any) -> None:
        if not f.code:
            return  # ``Fail.reported()``: reported already, one diagnostic per mistake
        span = f.span or node.span
        self.report(Diagnostic.error(f.code, f.message, span, f.label, help=f.help))

    def clash(self, have: Size, want: Size) -> bool:
        """Whether an axis labelled ``have`` may not stand where ``want`` is declared,
        their sizes being equal (``check.roles``)."""
        return self.roles.clash(have, want, self.local_roles)

    def role_of(self, label: Size) -> tuple[Size, bool]:
        """``label``'s role, and whether it holds a local role (for broadcasting)."""
        local = self.local_roles
        if not local:
            return label, False
        return self.roles.role(label, local), bool(label.free_vars() & local.keys())

    def group_order(self, splits: tuple[tuple[Size, ...], ...],
                    merges: tuple[tuple[Size, ...], ...], node: Any) -> None:
        """E0418 for a group merged in another order than this body split it: ``(h d)``
        and ``(d h)`` have one size and one role, but not one layout."""
        for members in merges:
            roles = tuple(self.roles.role(m, self.local_roles) for m in members)
            key = frozenset(roles)
            split = self.split_orders.get(key)
            if split is not None and split != roles and len(key) == len(roles):
                shown = lambda rs: "(" + " ".join(str(r) for r in rs) + ")"  # noqa: E731
                raise Fail(ec.E0418, f"the group is merged as `{shown(roles)}` but was split as "
                           f"`{shown(split)}` in this function", "another order",
                           span=node.span,
                           help=f"merge them as `{shown(split)}`, the order they were split "
                                "in; a layout that swaps them belongs in a function of its own")
        for members in splits:
            roles = tuple(self.roles.role(m, self.local_roles) for m in members)
            self.split_orders.setdefault(frozenset(roles), roles)

    def name_local_roles(self, t: TensorType, local: dict[str, tuple[Size, Size]]
                         ) -> TensorType:
        """``t`` (a pattern's output) with its local roles kept for the rest of the body:
        a name keeps the first thing it matched here; a name written again for
        something else labels that axis by what it matched, as a pattern's name did
        before it was a role (its written name still finds it in ``over=``)."""
        if not local:
            return t
        axes = list(t.axes)
        for i, ax in enumerate(axes):
            name = ax.alias
            if name is None or name not in local or ax.label != Size.var(name):
                continue
            size, matched = local[name]
            matched = self.roles.role(matched, self.local_roles)
            known = self.local_sizes.get(name)
            if known is None:
                self.local_sizes[name] = size
                self.local_roles[name] = matched
            elif known != size or self.local_roles[name] != matched:
                axes[i] = Axis(ax.size, local[name][1], False, name)
        return TensorType(tuple(axes), t.dtype, t.domain)

    def close(self) -> None:
        """Drops the parts, which point back at this checker: with the cyclic collector
        off while a file is checked, each body's checker and scope would otherwise stay in
        memory until the whole file is checked."""
        del self.exprs.calls, self.exprs, self.stmts

    def next_id(self) -> int:
        return next(self._ids)

    def note_call(self, sig: FnSig) -> None:
        self.callees.append(sig)

    def event(self, code: str, span: Span, message: str, label: str) -> None:
        self.events.append((code, span, message, label))

    def host_only_param(self, p: ast.Param, t: Type) -> None:
        """A model parameter is host-only (E1704) in a function an exported one calls; an
        exported function's own model parameter is E1705 instead (``check.exports``)."""
        if isinstance(t, ModelType) and self.sig is not None and not self.sig.export:
            self.host_only(p, "a model")

    def python_use(self, node: ast.Expr) -> None:
        self.event(ec.E1701, node.span, "Python in an exported function",
                   "a Python value: torch.export records torch operations only")

    def as_python(self, e: ast.AssertType) -> None:
        v = e.value
        if isinstance(v, ast.Name) and self.scope.get(v.id) is not None:
            self.event(ec.E1703, e.span, "`as` on a Python value in an exported function",
                       f"`{v.id}` is a Python value")

    def host_only(self, node: Any, what: str) -> None:
        self.event(ec.E1704, node.span, f"{what} has no torch-only lowering",
                   "host-only: not allowed in an exported function")

    # -- a function -----------------------------------------------------------------
    def run(self) -> FnResult:
        sig = self.sig
        assert sig is not None
        decl = sig.decl
        assert isinstance(decl, ast.FnDecl)
        for p, ps in zip(decl.params, sig.params):
            t: Type
            if ps.type is None:
                t = self.exprs.expr(p.default) if p.default is not None else ERROR
            else:
                t = ps.type  # type: ignore[assignment]
                if p.default is not None:
                    dt = self.exprs.expr(p.default)
                    try:
                        self.exprs.expect_fits(dt, t, p.default, f"the default of `{p.name}`")
                    except Fail as f:
                        self.fail(f, p.default)
            if isinstance(ps.type, SizeParam) and ps.type.name == p.name:
                continue  # `n: Size`: the name is the generic `n`, whose size the argument is
            if isinstance(ps.type, (AxisParam, SizeParam)):
                self.report(Diagnostic.error(
                    ec.E0504, f"`{ps.type}` is only for `extern fn` parameters", p.span,
                    "a `fn` parameter", help="a `fn` takes a size as `n: Size`, where `n` names the generic axis "
                    "it is the size of" if isinstance(ps.type, SizeParam)
                    else "take the axis's position or size from the types instead"))
                t = ERROR
            self.host_only_param(p, t)
            self.scope.bind(p.name, Var(t, p.span, "param"))
        if isinstance(decl.body, tuple):
            returns = self.stmts.block(decl.body)
            if sig.ret is not None and not returns:
                self.report(Diagnostic.error(
                    ec.E0801, f"`{sig.name}` doesn't return on every path", decl.name_span,
                    f"declared to return `{self.stmts.ret_text()}`",
                    help="end every path with `return`"))
        else:
            t = self.exprs.expr(decl.body)
            if sig.ret is not None:
                try:
                    if isinstance(t, PyType):
                        written = self.stmts.ret_text()
                        raise Fail(ec.E0413, "the shape of this Python value is unknown",
                                   f"the return type is `{written}`", span=decl.body.span,
                                   help=f"assert its shape with `as {written}`")
                    self.exprs.expect_fits(t, sig.ret, decl.body, "the return type")
                except Fail as f:
                    self.fail(f, decl.body)
        return FnResult(sig, uses_generics=set(self.used_generics), max_sizes=dict(self.max_sizes),
                        fixed_sizes=self.fixed_sizes(), exports=self.export_sites())

    def pin_sizes(self, checks: Iterable[RuntimeCheck], span: Span) -> None:
        """Records the signature's generics that a pattern's run-time checks pin to one
        size (``a=2`` on an axis `p`, or `2*p + 1`)."""
        generics = self.sig.generics if self.sig is not None else frozenset()
        for c in checks:
            lin = c.num.linear()
            want = c.den.const_value if c.den.is_const else None
            if c.helper != "has_size" or lin is None or want is None or lin[0] not in generics:
                continue
            g, a, k = lin
            if (want - k) % a == 0 and (want - k) // a >= 1:
                self.pinned.append((g, (want - k) // a, span))

    def fixed_sizes(self) -> dict[str, int]:
        """Generic → the one size every call that returns has (the first pin outside a
        branch a known condition rules out): an exported program takes it as static,
        where a dynamic dim would be specialised by the check and refused."""
        fixed: dict[str, int] = {}
        for g, n, at in self.pinned:
            if not any(_within(at, d) for d in self.dead_spans):
                fixed.setdefault(g, n)
        return fixed

    def export_sites(self) -> ExportSites:
        """This body's E17xx sites (a `map` over a generic count is E1707 here) and the
        functions it calls, for the export rules."""
        events = list(self.events)
        for call, n in self.map_sites:
            if n.free_vars():
                events.append((ec.E1707, call.span, "`map` over a generic size in an exported function",
                               f"`{n}` is a generic size, so the loop can't be unrolled"))
        events += self.extern_sites
        events = [ev for ev in events if not any(_within(ev[1], d) for d in self.dead_spans)]
        return ExportSites(tuple(events), tuple(c for c in self.callees if not c.is_extern))


def check_body(env: ModuleEnv, sig: FnSig, cm: CheckedModule) -> FnResult:
    """Checks the body of the function ``sig``, recording into ``cm``."""
    bc = BodyChecker(env, sig, cm)
    try:
        return bc.run()
    finally:
        bc.close()


def check_model_inits(cm: CheckedModule, env: ModuleEnv) -> None:
    """Field initialisers: ``normal(std=…)``, ``uniform(lo, hi)``, ``zeros``, ``ones``."""
    from shapescript.check.training import check_field_names

    check_field_names(cm, env)
    bc = BodyChecker(env, None, cm)
    for info in env.models.values():
        for f in info.decl.fields:
            init = f.init
            if init is None:
                continue
            if isinstance(init, ast.Name) and init.id in ("zeros", "ones"):
                cm.res[init] = FieldInit(init.id)
                continue
            if isinstance(init, ast.Call) and isinstance(init.func, ast.Name) and init.func.id in ("normal", "uniform"):
                kind = init.func.id
                allowed = ("std", "mean") if kind == "normal" else ("lo", "hi")
                values: dict[str, ast.Expr] = {}
                ok = True
                for i, a in enumerate(init.args):
                    key = a.name if a.name is not None else (allowed[i] if i < len(allowed) else None)
                    if key not in allowed:
                        cm.diagnostics.append(Diagnostic.error(
                            ec.E0502, f"`{kind}` has no parameter `{a.name or i}`", a.span,
                            "unknown keyword" if a.name else "one argument too many",
                            help="`normal(std=…, mean=…)` or `uniform(lo, hi)`"))
                        ok = False
                        continue
                    t = bc.exprs.expr(a.value)
                    if not isinstance(t, HostType) or t.name not in ("int", "float"):
                        if t is not ERROR:
                            cm.diagnostics.append(Diagnostic.error(
                                ec.E0410, f"`{key}` is a number", a.value.span, f"this is `{t}`"))
                        ok = False
                    values[key] = a.value
                if kind == "uniform" and ok and len(values) != 2:
                    cm.diagnostics.append(Diagnostic.error(
                        ec.E0501, "`uniform` takes `lo` and `hi`", init.span, ""))
                    ok = False
                if ok:
                    cm.res[init] = FieldInit(kind, tuple(values.items()))
                continue
            cm.diagnostics.append(Diagnostic.error(
                ec.E0503, "not a parameter initialiser", init.span, "unknown initialiser",
                help="use `normal(std=…)`, `uniform(lo, hi)`, `zeros` or `ones`"))


def check_module(module: ast.Module, source: str, prelude: ModuleEnv | None,
                 load: Loader) -> CheckedModule:
    """Check one parsed file; its diagnostics come sorted by position."""
    with paused_gc():
        return _check_module(module, source, prelude, load)


def _check_module(module: ast.Module, source: str, prelude: ModuleEnv | None,
                  load: Loader) -> CheckedModule:
    from shapescript.check.exports import check_exports

    env = declare(module, source, prelude, load)
    cm = CheckedModule(env, source, list(env.diagnostics), models=env.models)
    for name, sig in env.fns.items():
        if sig.is_extern:
            continue
        cm.fns[name] = check_body(env, sig, cm)
    check_model_inits(cm, env)
    check_exports(cm, env)
    cm.diagnostics = dedupe(cm.diagnostics)
    cm.canon = {}
    return cm


def dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for d in sorted(diags, key=lambda d: d.sort_key()):
        key = (d.code, d.file, d.line, d.column, d.message)
        if key in seen:
            continue
        seen.add(key)
        out.append(d)
    return out


__all__ = ["BodyChecker", "check_body", "check_module", "TensorType", "TupleType"]


def _within(span: Span, outer: Span) -> bool:
    return span.file == outer.file and outer.start <= span.start and span.end <= outer.end
