"""Statements and control flow: assignment, return, if, for, with.

Scopes: a name bound in every branch of an ``if`` that falls
through is defined after it (sizes and dtypes agree, domains join); a name bound in
only some branches, or first in a loop body, is out of scope after it (E0802); a
loop may not change the type of a variable from before it (E0803).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shapescript.check import ops
from shapescript.check.fail import Fail
from shapescript.check.narrowing import (
    Narrowing, equalities, narrow_scope, narrow_type, unnarrow, widen_scope,
)
from shapescript.check.known import known_if
from shapescript.check.scope import Scope, Var, check_local_name
from shapescript.check.sizes import Size
from shapescript.check.types import (
    Axis, BOOL, ERROR, INT, PY, ErrorType, HostOnlyType, HostType, ModelType, NothingType, PyType,
    TensorType, TupleType, Type,
)
from shapescript.diagnostics import Diagnostic
from shapescript.source import Span, word_span
from shapescript.syntax import ast
from shapescript import error_codes as ec

if TYPE_CHECKING:
    from shapescript.check.body import BodyChecker
    from shapescript.check.exprs import ExprChecker


def same_shape(a: Type, b: Type) -> bool:
    """Sizes, dtype and labels agree (domains may differ)."""
    if isinstance(a, ErrorType) or isinstance(b, ErrorType):
        return True
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return (a.dtype == b.dtype and len(a.axes) == len(b.axes)
                and all(x.size == y.size and x.label == y.label and x.variadic == y.variadic
                        for x, y in zip(a.axes, b.axes)))
    if isinstance(a, HostType) and isinstance(b, HostType):
        return a.name == b.name or {a.name, b.name} == {"int", "float"}
    if isinstance(a, TupleType) and isinstance(b, TupleType):
        return len(a.items) == len(b.items) and all(same_shape(x, y) for x, y in zip(a.items, b.items))
    return type(a) is type(b) and (not isinstance(a, ModelType) or a == b)


def merge_types(a: Type, b: Type) -> Type:
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return TensorType(a.axes, a.dtype, ops.join_domain(a.domain, b.domain))
    if isinstance(a, HostType) and isinstance(b, HostType):
        if a.name != b.name:
            return HostType("float")
        return a if a == b else HostType(a.name)
    return a


class StmtChecker:
    """Checks the statements of one body: owned by the body's checker (``body``), whose
    scope it updates (a branch, a loop body, a merge replace ``body.scope``), and whose
    expressions it types with the body's expression checker (``exprs``)."""

    def __init__(self, body: BodyChecker) -> None:
        self.body = body
        self.exprs: ExprChecker = body.exprs
        self.env = body.env
        self.sig = body.sig
        self.source = body.source
        self.types = body.types
        # In a loop body: the tensors declared with unknowns that it assigns, with the type
        # each has at the start of an iteration.
        self.carried: dict[str, TensorType] | None = None
        # In a loop body: the names bound before the loop (assigning one may not change it).
        self.loop_vars: set[str] | None = None
        # How many `if`s on a tensor's value enclose the statement (a `return` in one is E0805).
        self.tensor_ifs = 0
        # The type an annotated assignment declares, for its value's check.
        self.assigned_type: Type = ERROR
        # In the branch of an `if i == o`: what it proves (narrowing.py), for the return type.
        self.narrowed: Narrowing = {}

    def block(self, stmts: tuple[ast.Stmt, ...]) -> bool:
        """Check a block; True when it returns on every path."""
        returns = False
        for s in stmts:
            if returns:
                # Unreachable code is still checked, for its diagnostics.
                self.stmt(s)
                continue
            returns = self.stmt(s)
        return returns

    def stmt(self, s: ast.Stmt) -> bool:
        try:
            return getattr(self, "s_" + type(s).__name__)(s)
        except Fail as f:
            self.body.fail(f, s)
            # A failed `return` still ends its path: no E0801 cascade.
            return isinstance(s, ast.Return)

    # ------------------------------------------------------------------
    def bind_name(self, name: str, t: Type, span: Span) -> None:
        check_local_name(name, span, self.env, self.sig)
        old = self.body.scope.get(name)
        if old is not None and self.loop_vars is not None and name in self.loop_vars:
            carried = (self.carried or {}).get(name)
            if carried is not None and isinstance(t, TensorType):
                # A tensor declared with unknowns (`out: [b ?s]`) may change those sizes;
                # the rest of the body sees the new ones.
                self.check_regrow(name, carried, t, span)
                self.body.scope.bind(name, Var(t, span, old.kind))
                return
            host_changes = (isinstance(old.type, HostType) and isinstance(t, HostType)
                            and old.type.name != t.name)
            if host_changes or not same_shape(old.type, t) or not ops.domain_fits(t, old.type):
                raise Fail(ec.E0803, f"the loop changes the type of `{name}`",
                           f"`{name}` was `{old.type}` before the loop, this is `{t}`", span=span,
                           help=_loop_help(name, old.type, t))
            t = old.type
        self.body.scope.bind(name, Var(t, span, old.kind if old else "local"))

    def check_regrow(self, name: str, old: TensorType, t: TensorType, span: Span) -> None:
        """A loop's new value for a tensor declared with unknowns: the same type but
        for the unknown axes, which take any size (one unknown, one size)."""
        why = _regrow_problem(old, t)
        if why is not None:
            raise Fail(ec.E0803, f"the loop changes the type of `{name}`",
                       f"`{name}` is `{old}`, this is `{t}`: {why}", span=span,
                       help="only the axes written with `?` may change size in a loop")

    def s_Assign(self, s: ast.Assign) -> bool:
        self.assigned_type = ERROR
        try:
            return self.assign(s)
        except Fail:
            # The names still get bound (to the annotation, else the error type), so
            # their uses further on don't cascade into "unknown name" errors.
            for target in s.targets:
                if isinstance(target, ast.Name) and self.body.scope.get(target.id) is None:
                    try:
                        check_local_name(target.id, target.span, self.env, self.sig)
                    except Fail:
                        continue
                    t = self.assigned_type if len(s.targets) == 1 else ERROR
                    self.types[target] = t
                    self.body.scope.bind(target.id, Var(t, target.span))
            raise

    def assign(self, s: ast.Assign) -> bool:
        t = self.exprs.expr(s.value)
        if isinstance(t, NothingType):
            raise Fail(ec.E0404, "this call gives nothing to assign", "returns nothing", span=s.value.span)
        if len(s.targets) == 1:
            target = s.targets[0]
            if isinstance(target, ast.Attr):
                return self.assign_field(target, t, s)
            if not isinstance(target, ast.Name):
                return False  # the parser reported it (E0101): only names and fields
            if s.annotation is not None:
                tb = self.exprs.type_builder()
                ann = tb.type(s.annotation)
                if tb.failed or isinstance(ann, ErrorType):
                    t = ERROR
                else:
                    self.assigned_type = ann  # type: ignore[assignment]
                    self.exprs.expect_fits(t, ann, s.value, f"`{target.id}`")  # type: ignore[arg-type]
                    if isinstance(ann, TensorType) and isinstance(t, TensorType):
                        ann = TensorType(ann.axes, ann.dtype, ann.domain)
                    t = ann  # type: ignore[assignment]
            self.types[target] = t
            self.bind_name(target.id, t, target.span)
            return False
        n = len(s.targets)
        if isinstance(t, TupleType):
            if len(t.items) != n:
                raise Fail(ec.E0406, f"{n} names for a tuple of {len(t.items)}",
                           f"this gives {len(t.items)} values", span=s.value.span,
                           help=f"unpack it into {len(t.items)} names")
            items = list(t.items)
        elif isinstance(t, (PyType, ErrorType)):
            items = [t] * n
        else:
            raise Fail(ec.E0404, f"`{t}` can't be unpacked into {n} names", "not a tuple", span=s.value.span)
        for target, it in zip(s.targets, items):
            if not isinstance(target, ast.Name):
                continue  # the parser reported it (E0101): only names
            self.types[target] = it
            self.bind_name(target.id, it, target.span)
        return False

    def assign_field(self, target: ast.Attr, t: Type, s: ast.Assign) -> bool:
        mt = self.exprs.expr(target.value)
        if isinstance(mt, ErrorType):
            return False
        if not isinstance(mt, ModelType):
            raise Fail(ec.E0901, f"`{mt}` has no fields to assign", "not a model", span=target.span)
        info = self.exprs.model_info(mt)
        f = info.fields.get(target.attr) if info else None
        if f is None and info is not None and target.attr in info.failed:
            return False  # its declaration failed, already reported
        if f is None:
            raise Fail(ec.E0901, f"model `{mt.name}` has no field `{target.attr}`", "unknown field",
                       span=target.span)
        try:
            self.exprs.expect_fits(t, f.type, s.value, f"field `{target.attr}`")
        except Fail as err:
            raise Fail(ec.E0903, f"field `{mt.name}.{target.attr}` is `{f.type}`, not `{t}`",
                       f"this is `{t}`", span=s.value.span,
                       help=err.help or "a field keeps its declared type") from None
        self.body.host_only(s, "changing a model's field")
        self.types[target] = f.type
        return False

    def s_ExprStmt(self, s: ast.ExprStmt) -> bool:
        self.exprs.expr(s.expr)
        return False

    def s_Return(self, s: ast.Return) -> bool:
        sig = self.sig
        if s.value is None:
            if sig is not None and sig.ret is not None:
                raise Fail(ec.E0801, "`return` without a value in a function that returns one",
                           f"the return type is `{self.ret_text()}`", span=s.span)
            return True
        t = self.exprs.expr(s.value)
        if self.tensor_ifs:
            self.body.event(ec.E1706, s.span, "`return` inside an `if` on a tensor",
                       "this returns from inside a `torch.cond` branch")
        if sig is None:
            return True
        if sig.ret is None:
            if not isinstance(t, (NothingType, ErrorType)):
                raise Fail(ec.E0404, f"`{sig.name}` declares no return type but returns `{t}`",
                           "a value is returned", span=s.value.span,
                           help="add a return type: `-> T`")
            return True
        if isinstance(t, PyType):
            written = self.ret_text()
            raise Fail(ec.E0413, "the shape of this Python value is unknown",
                       f"the return type is `{written}`", span=s.value.span,
                       help=f"assert its shape with `as {written}`")
        self.exprs.expect_fits(t, narrow_type(sig.ret, self.narrowed), s.value, "the return type")
        return True

    def ret_text(self) -> str:
        decl = self.sig.decl if self.sig else None
        if decl is None or decl.ret is None:
            return ""
        sp = decl.ret.span
        return self.source[sp.start:sp.end]

    def condition(self, c: ast.Expr) -> bool:
        """Check an ``if`` condition; True when it is a tensor (a ``torch.cond``)."""
        t = self.exprs.expr(c)
        if isinstance(t, (ErrorType, PyType)):
            return False
        if isinstance(t, HostType) and t.name == "bool":
            return False
        if isinstance(t, TensorType) and t.dtype == "bool" and not t.axes:
            return True
        label = f"this is `{t}`"
        help = None
        if isinstance(t, TensorType) and t.dtype == "bool":
            help = "reduce it to one value first, e.g. `max(m)` (any) or `min(m)` (all)"
        raise Fail(ec.E0804, "not a condition", label, span=c.span,
                   help=help or "an `if` takes a bool or a `[] Mask`")

    def s_If(self, s: ast.If) -> bool:
        before = self.body.scope
        outs: list[tuple[Scope, bool]] = []
        proved: list[Narrowing] = []  # what each branch's condition proves
        tensor_cond = False
        for br in s.branches:
            self.body.scope = before.copy()
            try:
                is_tensor = self.condition(br.cond)
            except Fail as f:
                self.body.fail(f, br.cond)
                is_tensor = False
            tensor_cond |= is_tensor
            if is_tensor:
                self.tensor_ifs += 1
            outer = self.narrowed
            eqs = {} if is_tensor or self.sig is None else equalities(
                br.cond, self.sig.generics, self.exprs.expr_size)
            changed = narrow_scope(self.body.scope, eqs) if eqs else {}
            self.narrowed = {**outer, **eqs}
            ret = self.block(br.body)
            self.narrowed = outer
            widen_scope(self.body.scope, changed)
            if is_tensor:
                self.tensor_ifs -= 1
            outs.append((self.body.scope, ret))
            proved.append(eqs)
        if s.orelse is not None:
            self.body.scope = before.copy()
            if tensor_cond:
                self.tensor_ifs += 1
            ret = self.block(s.orelse)
            if tensor_cond:
                self.tensor_ifs -= 1
            outs.append((self.body.scope, ret))
        else:
            outs.append((before.copy(), False))
        proved += [{}] * (len(outs) - len(proved))
        unnarrow(outs, proved)
        known = known_if(self.body.res, s)
        if known is not None:
            # A branch a const rules out was checked for types only: what comes after
            # sees the branches that can run.
            self.body.res[s] = known
            self.body.dead_spans += [b.span for i, b in enumerate(s.branches) if i in known.dead]
            if s.orelse is not None and len(s.branches) in known.dead:
                self.body.dead_spans += [x.span for x in s.orelse]
            outs = [o for i, o in enumerate(outs) if i not in known.dead
                    and not (i == len(s.branches) and s.orelse is None and known.taken is not None)]
        self.body.scope = self.merge(before, outs, s)
        return all(ret for _, ret in outs)

    def merge(self, before: Scope, outs: list[tuple[Scope, bool]], s: ast.Stmt) -> Scope:
        result = before.copy()
        live = [sc for sc, ret in outs if not ret]
        names: set[str] = set()
        for sc, _ in outs:
            names |= set(sc.vars)
            for d, sp in sc.dead.items():
                if d not in before.vars:
                    result.dead[d] = sp
        for name in names:
            vs = [sc.vars.get(name) for sc in live]
            if not live:
                continue
            if any(v is None for v in vs):
                if name not in before.vars:
                    first = next(v for v in vs if v is not None) if any(vs) else None
                    result.dead[name] = first.span if first else s.span
                    result.vars.pop(name, None)
                continue
            t = vs[0].type  # type: ignore[union-attr]
            grown = self.merge_grown(name, [v.type for v in vs])  # type: ignore[union-attr]
            if grown is not None:
                result.vars[name] = Var(grown, vs[0].span, vs[0].kind)  # type: ignore[union-attr]
                continue
            for v in vs[1:]:
                assert v is not None
                if not same_shape(t, v.type):
                    self.body.report(Diagnostic.error(
                        ec.E0401, f"`{name}` has different types in the branches",
                        v.span, f"this is `{v.type}`, another branch gives `{t}`",
                        help="give it the same shape and dtype in every branch"))
                    t = ERROR
                    break
                t = merge_types(t, v.type)
            result.vars[name] = Var(t, vs[0].span, vs[0].kind)  # type: ignore[union-attr]
        return result

    def s_For(self, s: ast.For) -> bool:
        """A loop's iterable (range, batches, tuple), then its body checked for growing
        tensors, with the scopes threaded between."""
        before = self.body.scope
        body_scope = before.copy()
        target_types = self._loop_targets(s)
        carried, exit_ = self._growing(before, s)
        for name, grown in carried.items():
            body_scope.vars[name] = Var(grown, before.vars[name].span, before.vars[name].kind)
        saved_carried = self.carried
        self.carried = {**(saved_carried or {}), **carried}
        self.body.scope = body_scope
        saved_loop = self.loop_vars
        self.loop_vars = set(before.vars) | (saved_loop or set())
        spans = s.target_spans or tuple(s.span for _ in s.targets)
        for name, t, sp in zip(s.targets, target_types, spans):
            check_local_name(name, sp, self.env, self.sig)
            self.body.scope.bind(name, Var(t, sp, "loop"))
        self.block(s.body)
        self.loop_vars = saved_loop
        self.carried = saved_carried
        if carried:
            try:
                self.check_alike(carried, s)
            except Fail as f:
                self.body.fail(f, s)
        after = before.copy()
        for name, v in self.body.scope.vars.items():
            if name not in before.vars:
                after.dead[name] = v.span
            else:
                after.vars[name] = exit_.get(name) or before.vars[name]
        for d, sp in self.body.scope.dead.items():
            if d not in before.vars:
                after.dead[d] = sp
        self.body.scope = after
        return False

    def _loop_targets(self, s: ast.For) -> list[Type]:
        """The types of a loop's targets, from its iterable: a range's host ints, a
        batch's tensors, a Python value's; the error type after a reported problem."""
        it = s.iter
        if isinstance(it, ast.Range):
            for end in (it.lo, it.hi):
                t = self.exprs.expr(end)
                if not isinstance(t, (ErrorType, PyType)) and not (isinstance(t, HostType) and t.name == "int"):
                    self.body.fail(Fail(ec.E0410, f"a range's ends are host ints, not `{t}`", f"this is `{t}`",
                                   span=end.span), end)
            if len(s.targets) != 1:
                raise Fail(ec.E0101, "a range gives one value per step", "", span=s.span)
            self.body.range_loops.append(s)
            return [HostType("int", None, "NonNeg")]
        n_events = len(self.body.events)
        t = self.exprs.expr(it)
        # A failed iterable is reported once; the body is still checked, its
        # targets of the error type.
        target_types: list[Type] = [ERROR] * len(s.targets)
        if isinstance(t, TensorType):
            self.body.fail(Fail(ec.E0805, "`for` over a tensor", f"this is `{t}`", span=it.span,
                           help="use `map`, or index it: `for i in 0..n:` then `x[i]`"), s)
        elif isinstance(t, HostOnlyType) and t.kind == "batches":
            if len(s.targets) != len(t.items):
                self.body.fail(Fail(ec.E0406, f"{len(s.targets)} names for batches of {len(t.items)} tensors",
                               f"batches of {len(t.items)}", span=it.span,
                               help=f"unpack each batch into {len(t.items)} names"), s)
            else:
                target_types = list(t.items)
        elif isinstance(t, (PyType, ErrorType)):
            target_types = [PY if isinstance(t, PyType) else ERROR] * len(s.targets)
        else:
            self.body.fail(Fail(ec.E0805, f"`for` can't walk over `{t}`", f"this is `{t}`", span=it.span,
                           help="`for` walks a range `a..b`, a Python value or `batches(…)`"), s)
        if isinstance(t, (PyType, HostOnlyType)) and \
                not any(ev[0] == ec.E1704 for ev in self.body.events[n_events:]):
            # (a loop over `batches(…)` is one site: the call's)
            self.body.host_only(s, "a `for` loop over anything but a range")
        return target_types

    def _growing(self, before: Scope, s: ast.For) -> tuple[dict[str, TensorType], dict[str, Var]]:
        """The tensors the loop may grow: each one's type in the body and after the loop.

        Tensors declared with unknowns that the body assigns may change size: in the
        body their unknowns are new ones, not shared with any value from before the
        loop, and after it newer ones again. Variables sharing an unknown share its new
        one, so long as the body changes them alike (checked at its end)."""
        assigned = _assigned_names(s.body)
        growing = {n: v for n, v in before.vars.items() if n in assigned
                   and isinstance(v.type, TensorType) and _unknown_axes(v.type)}
        unknowns = sorted(set().union(*(_unknown_axes(v.type) for v in growing.values())))  # type: ignore[arg-type]
        at_entry = {u: Size.var(f"{_shown(u)}#{self.body.next_id()}") for u in unknowns}
        at_exit = {u: Size.var(f"{_shown(u)}#{self.body.next_id()}") for u in unknowns}
        carried: dict[str, TensorType] = {}
        exit_: dict[str, Var] = {}
        for name, v in growing.items():
            carried[name] = _renamed(v.type, at_entry)  # type: ignore[arg-type]
            exit_[name] = Var(_renamed(v.type, at_exit), v.span, v.kind)  # type: ignore[arg-type]
        return carried, exit_

    def s_With(self, s: ast.With) -> bool:
        if s.mode != "Train":
            # Reported at the mode's name; the block is still checked, as if it were Train.
            self.body.fail(Fail(ec.E0201, f"unknown mode `{s.mode}`", "not a mode",
                           span=word_span(self.source, s.span, s.mode),
                           help="the mode is `Train`: `with Train:`"), s)
        self.body.host_only(s, "`with Train:`")
        return self.block(s.body)

    def merge_grown(self, name: str, types: list[Type]) -> TensorType | None:
        """Where branches of an ``if`` in a loop change a growing variable differently,
        its unknown axes get a new unknown after the ``if`` (None: nothing to merge)."""
        carried = (self.carried or {}).get(name)
        if carried is None or not all(isinstance(t, TensorType) for t in types):
            return None
        first = types[0]
        assert isinstance(first, TensorType)
        if all(same_shape(first, t) for t in types[1:]):
            return None
        if any(_regrow_problem(carried, t) is not None for t in types):  # type: ignore[arg-type]
            return None  # reported as the branches' difference
        axes = []
        fresh: dict[str, Size] = {}
        for k, a in enumerate(carried.axes):
            sizes = {t.axes[k].size for t in types}  # type: ignore[union-attr]
            if len(sizes) == 1:
                axes.append(types[0].axes[k])  # type: ignore[union-attr]
                continue
            u = a.size.var_name or "?"
            new = fresh.setdefault(u, Size.var(f"{_shown(u)}#{self.body.next_id()}"))
            axes.append(Axis(new, new))
        domain = first.domain
        for t in types[1:]:
            domain = ops.join_domain(domain, t.domain)  # type: ignore[union-attr, arg-type]
        return TensorType(tuple(axes), first.dtype, domain)

    def check_alike(self, carried: dict[str, TensorType], s: ast.For) -> None:
        """At the end of a loop body, the variables that shared an unknown at its start
        have equal sizes for it again (else the next iteration would take them as equal)."""
        seen: dict[str, tuple[str, Size]] = {}
        for name, entry in carried.items():
            v = self.body.scope.get(name)
            now = v.type if v is not None else entry
            if not isinstance(now, TensorType) or len(now.axes) != len(entry.axes):
                continue  # reported where it was assigned
            for a, b in zip(entry.axes, now.axes):
                u = None if a.variadic else a.size.var_name
                if u is None or not u.startswith("?"):
                    continue
                if u not in seen:
                    seen[u] = (name, b.size)
                elif seen[u][1] != b.size:
                    other, size = seen[u]
                    raise Fail(ec.E0803, f"the loop changes `{other}` and `{name}` differently",
                               f"both start an iteration with `{_shown(u)}`, and end it with "
                               f"`{size}` and `{b.size}`", span=word_span(self.source, s.span, "for"),
                               help=f"change both alike, or declare them with unknowns of their "
                                    f"own (`{_shown(u)}` and another)")


def _unknown_axes(t: TensorType) -> set[str]:
    """The unknowns (``?s``) that are whole axes of ``t``."""
    out = set()
    for a in t.axes:
        u = None if a.variadic else a.size.var_name
        if u is not None and u.startswith("?"):
            out.add(u)
    return out


def _regrow_problem(old: TensorType, t: TensorType) -> str | None:
    """Why ``t`` can't be a new value of a variable of type ``old`` in a loop (None: it can)."""
    if len(old.axes) != len(t.axes) or old.has_variadic or t.has_variadic:
        return "another rank"
    if old.dtype != t.dtype:
        return "another dtype"
    grown: dict[str, Size] = {}
    for a, b in zip(old.axes, t.axes):
        u = a.size.var_name
        if u is not None and u.startswith("?"):
            prev = grown.setdefault(u, b.size)
            if prev != b.size:
                return f"the axes of `{_shown(u)}` differ ({prev} and {b.size})"
        elif a.size != b.size or a.label != b.label:
            return f"the axis `{a}` isn't one of its unknowns"
    if not ops.domain_fits(t, old):
        return "a wider domain"
    return None


def _renamed(t: TensorType, new: dict[str, Size]) -> TensorType:
    return TensorType(tuple(Axis(a.size.substitute(new), a.label.substitute(new), a.variadic)
                            for a in t.axes), t.dtype, t.domain)


def _shown(u: str) -> str:
    return u.split("#")[0]


def _loop_help(name: str, old: Type, t: Type) -> str:
    if isinstance(old, TensorType) and isinstance(t, TensorType) and old.dtype == t.dtype \
            and len(old.axes) == len(t.axes) and not old.has_variadic:
        changed = [a for a, b in zip(old.axes, t.axes) if a.size != b.size]
        if changed and all(a.label.var_name for a in changed):
            shape = " ".join(f"?{a.label}" if a in changed else str(a) for a in old.axes)
            return (f"a variable keeps its type through a loop; to let an axis change size, "
                    f"declare the variable with an unknown for it before the loop: "
                    f"`{name}: [{shape}] … = …`")
    return "a variable keeps its type through a loop; use a new name"


def _assigned_names(stmts: tuple[ast.Stmt, ...]) -> set[str]:
    """The names a block assigns, nested blocks included."""
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, ast.Assign):
            out |= {t.id for t in s.targets if isinstance(t, ast.Name)}
        elif isinstance(s, ast.If):
            for br in s.branches:
                out |= _assigned_names(br.body)
            if s.orelse is not None:
                out |= _assigned_names(s.orelse)
        elif isinstance(s, (ast.For, ast.With)):
            out |= _assigned_names(s.body)
    return out


__all__ = ["StmtChecker", "same_shape", "merge_types", "INT", "BOOL"]
