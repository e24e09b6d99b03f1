"""Generates each signature's fast checker: straight-line Python, no string formatting.

The generated function tests exactly what the slow path in ``checks`` tests, in any
order, and returns the bindings; at the first test that fails it calls ``_slow``, which
checks again in the specified order and raises the first failure's exact message. Which
generics are bound at each axis is known here, from the specs, so a bound generic is one
comparison and an unbound one an assignment; only names first bound by an optional
argument are tested at run time (``is None``).

A failed test raises ``_Fail``, caught at the end of the function, which then asks
``_slow`` for ``(True, result)`` or ``(False, error)`` and raises the error itself, so a
traceback ends at the checker's frame, not deep in the slow path.

``gen_args_checker(specs, field_specs)`` and ``gen_as_checker(spec)`` return the
function's source and the constants it reads; ``checks`` execs it with the runtime names
``_slow _Fail _T _PROC _EFF _Device _resolve _dom _hok _CPU`` added.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .domains import _UNCHECKED_DOMAINS
from .specs import HostSpec, ModelSpec, TensorSpec, _axis_dim, _variadic_index

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import TypeAlias

    from .specs import HostFields, ModelFields, ParamFields, TensorFields

    # A model class's field specs (``checks.model_field_specs``).
    FieldSpecs: TypeAlias = Callable[[type], tuple[TensorFields, ...]]


class _CheckerGen:
    """Accumulates one checker's lines, constants and binding states."""

    def __init__(self, fail: str, as_mode: bool) -> None:
        self.fail, self.as_mode = fail, as_mode
        self.lines, self.inits, self.deferred = [], [], []
        self.consts, self.state, self.local = {}, {}, {}
        self.depth, self.tensors, self.guards = 2, 0, []

    def const(self, obj: object) -> str:
        for name, value in self.consts.items():
            if value is obj:
                return name
        name = f"_k{len(self.consts)}"
        self.consts[name] = obj
        return name

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def var(self, key: str) -> str:
        if key not in self.local:
            self.local[key] = f"_g{len(self.local)}"
        return self.local[key]

    def bind(self, key: str, value: str, ne: str = "!=") -> None:
        """Binds ``key`` to the expression ``value``, or compares it with the binding."""
        v, st = self.var(key), self.state.get(key)
        if st is None:
            self.emit(f"{v} = {value}")
            self.state[key] = "yes"
        elif st == "yes":
            self.emit(f"if {value} {ne} {v}: {self.fail}")
        else:
            self.emit(f"if {v} is None: {v} = {value}")
            self.emit(f"elif {value} {ne} {v}: {self.fail}")
            self.state[key] = "yes"

    def begin_optional(self, x: str) -> None:
        self.emit(f"if {x} is not None:")
        self.depth += 1
        self.guards.append((x, dict(self.state)))

    def end_optional(self) -> None:
        self.depth -= 1
        _, before = self.guards.pop()
        for key, st in self.state.items():
            if st == "yes" and before.get(key) != "yes":
                if before.get(key) is None:
                    self.inits.append(f"{self.local[key]} = None")
                self.state[key] = "maybe"

    def guard(self) -> str:
        """The condition under which the current block runs (for deferred tests)."""
        return " and ".join(f"{x} is not None" for x, _ in self.guards)

    def defer(self, cond: str) -> None:
        g = self.guard()
        self.deferred.append(f"({g} and {cond})" if g else f"({cond})")

    # -- one tensor --------------------------------------------------------------------
    def tensor(self, x: str, spec: TensorFields) -> None:
        fail, axes = self.fail, spec.axes
        t = self.tensors
        self.tensors += 1
        if spec.optional:
            self.begin_optional(x)
        s, n, R = f"_s{t}", f"_n{t}", len(axes)
        vi = _variadic_index(axes)
        self.emit(f"if not isinstance({x}, _T): {fail}")
        self.emit(f"{s} = {x}.shape")
        if vi is None and all(isinstance(a, int) for a in axes):
            self.emit(f"if {s} != {self.const(tuple(axes))}: {fail}")
        elif vi is None:
            self.emit(f"if len({s}) != {R}: {fail}")
        else:
            self.emit(f"{n} = len({s})")
            self.emit(f"if {n} < {R - 1}: {fail}")
        static_shape = vi is None and all(isinstance(a, int) for a in axes)

        def at(j: int) -> str:
            return f"{s}[{j}]" if vi is None or j < vi else f"{s}[{j - R}]"

        # 1. bare generics, ``?`` sizes, ``...``
        for j, ax in enumerate(axes):
            if ax == "...":
                tail = R - 1 - vi  # type: ignore[operator]  # vi is set: an axis is "..."
                self.bind("...", f"tuple({s}[{vi}:{n} - {tail}])" if tail else
                          f"tuple({s}[{vi}:])")
            elif isinstance(ax, str):
                self.bind(ax, at(j))
            elif isinstance(ax, tuple) and ax[0] == "?":
                self.bind("?" + ax[1], at(j))
        # 2. linear forms
        for j, ax in enumerate(axes):
            if isinstance(ax, tuple) and ax[0] == "lin":
                _, var, a, c, _text = ax
                v, st = self.var(var), self.state.get(var)
                solve = [f"_q, _r = divmod({at(j)} - {c}, {a})",
                         f"if _r or _q < 0: {fail}", f"{v} = _q"]
                compare = f"if {at(j)} != {a} * {v} + {c}: {fail}"
                if st is None:
                    for line in solve:
                        self.emit(line)
                    self.state[var] = "yes"
                elif st == "yes":
                    self.emit(compare)
                else:
                    self.emit(f"if {v} is None:")
                    self.depth += 1
                    for line in solve:
                        self.emit(line)
                    self.depth -= 1
                    self.emit("else:")
                    self.depth += 1
                    self.emit(compare)
                    self.depth -= 1
                    self.state[var] = "yes"
        # 3. static sizes now; size expressions once everything is bound
        if not static_shape:
            conds = [f"{at(j)} != {ax}" for j, ax in enumerate(axes) if isinstance(ax, int)]
            if conds:
                self.emit(f"if {' or '.join(conds)}: {fail}")
        for j, ax in enumerate(axes):
            if isinstance(ax, tuple) and ax[0] == "expr":
                self.defer(f"{at(j)} != int({self.const(ax[2])}(env))")
        self.dtype(x, spec)
        self.device(x)
        self.domain(x, spec)
        if spec.optional:
            self.end_optional()

    def dtype(self, x: str, spec: TensorFields) -> None:
        want = spec.dtype
        if want is None:
            return
        if isinstance(want, torch.dtype):
            self.emit(f"if {x}.dtype is not {self.const(want)}: {self.fail}")
            return
        cls, members = want
        self.emit(f"_dt = {x}.dtype")
        self.emit(f"if _dt not in {self.const(frozenset(members))}: {self.fail}")
        self.bind(cls, "_dt", ne="is not")

    def device(self, x: str) -> None:
        if self.as_mode:
            self.emit(f"if dev is not None and {x}.device != dev and "
                      f"(dev.index is not None or {x}.device.type != dev.type): {self.fail}")
            return
        self.emit(f"if {x}.device != dev:")
        self.emit(f"    if dev is None: dev = {x}.device")
        self.emit(f"    elif decl is None or dev.index is not None or "
                  f"{x}.device.type != dev.type: {self.fail}")

    def domain(self, x: str, spec: TensorFields) -> None:
        dom = spec.domain
        if dom is None or dom.kind in _UNCHECKED_DOMAINS:
            return
        k = self.const(dom)
        over_now = dom.over is None or isinstance(dom.over, int)
        bound = dom.index
        bound_now = (bound is None or isinstance(bound, int)
                     or (isinstance(bound, str) and self.state.get(bound) == "yes"))
        if over_now and bound_now:
            over: int | str | None = _axis_dim(spec.axes, dom.over)
            b = self.var(bound) if isinstance(bound, str) else bound
            self.emit(f"if values_on and _dom({x}, {k}, {over}, {b}) is not None: "
                      f"{self.fail}")
            return
        if isinstance(dom.over, str):
            over = f"_axd({self.const(spec.axes)}, env[{dom.over!r}])"
        else:
            over = repr(_axis_dim(spec.axes, dom.over))
        b = (repr(bound) if bound is None or isinstance(bound, int) else
             f"env[{bound!r}]" if isinstance(bound, str) else f"int({self.const(bound)}(env))")
        self.defer(f"values_on and _dom({x}, {k}, {over}, {b}) is not None")

    # -- other parameters ------------------------------------------------------------
    def host(self, x: str, spec: HostFields) -> None:
        if spec.optional:
            self.begin_optional(x)
        pt, fail = spec.pytype, self.fail
        if pt is int or pt is bool or pt is str:
            self.emit(f"if {x}.__class__ is not {pt.__name__} and not _hok({x}, "
                      f"{self.const(pt)}): {fail}")
        elif pt is float:
            self.emit(f"if {x}.__class__ is not float and {x}.__class__ is not int and "
                      f"not _hok({x}, float): {fail}")
        else:
            self.emit(f"if not _hok({x}, {self.const(pt)}): {fail}")
        if spec.binds is not None:
            self.emit(f"if {x} < 0: {fail}")
            self.bind(spec.binds, x)
        if spec.optional:
            self.end_optional()

    def model(self, x: str, spec: ModelFields, field_specs: FieldSpecs) -> None:
        if spec.optional:
            self.begin_optional(x)
        self.emit(f"if not isinstance({x}, {self.const(spec.cls)}): {self.fail}")
        is_module = issubclass(spec.cls, torch.nn.Module)
        p = f"_p{self.tensors}"
        if is_module:
            self.emit(f"{p} = {x}._parameters")
        for field in field_specs(spec.cls):
            f = f"_f{self.tensors}"
            if is_module:
                self.emit(f"{f} = {p}.get({field.name!r})")
                self.emit(f"if {f} is None: {f} = getattr({x}, {field.name!r}, None)")
            else:
                self.emit(f"{f} = getattr({x}, {field.name!r}, None)")
            self.tensor(f, TensorSpec(field.name, field.where, field.written, field.axes,
                                      field.dtype, field.domain))
        if spec.optional:
            self.end_optional()

    def env_lines(self, target: str) -> list[str]:
        lines = [f"{target} = {{" + ", ".join(
            f"{k!r}: {self.local[k]}" for k, st in self.state.items() if st == "yes") + "}"]
        for k, st in self.state.items():
            if st == "maybe":
                lines.append(f"if {self.local[k]} is not None: {target}[{k!r}] = "
                             f"{self.local[k]}")
        return lines

    def deferred_lines(self) -> list[str]:
        if not self.deferred:
            return []
        return ["try:", f"    _bad = {' or '.join(self.deferred)}",
                "except Exception:", "    _bad = True", f"if _bad: {self.fail}"]


def _indent(lines: Iterable[str], depth: int = 1) -> list[str]:
    return ["    " * depth + line for line in lines]


def _slow_tail(call: str, ok: str) -> list[str]:
    """After the ``try``: the slow path's verdict, raised from this frame."""
    return [f"    _ok, _r = {call}", f"    if _ok: return {ok}", "    raise _r"]


def gen_args_checker(specs: Sequence[ParamFields | None], field_specs: FieldSpecs) -> tuple[str, dict[str, object]]:
    """The source of ``check(args, checks_on, values_on, device) -> env`` for ``specs``,
    and the constants it reads."""
    g = _CheckerGen("raise _Fail", as_mode=False)
    names = [f"a{i}" for i in range(len(specs))]
    for x, spec in zip(names, specs):
        if spec is None:
            continue
        if isinstance(spec, TensorSpec):
            g.tensor(x, spec)
        elif isinstance(spec, HostSpec):
            g.host(x, spec)
        elif isinstance(spec, ModelSpec):
            g.model(x, spec, field_specs)
        else:
            raise TypeError(f"not a parameter spec: {spec!r}")
    slow = "_slow(args, checks_on, values_on, device)"
    head = [
        "def check(args, checks_on=True, values_on=True, device=_PROC):",
        "    if device is _PROC: dev = _EFF[0]",
        "    elif device is None or device.__class__ is _Device: dev = device",
        "    else: dev = _resolve(device)",
        "    if checks_on:",
        "      try:",
        "        decl = dev",
    ]
    if names:
        head += ["        try:", f"            {', '.join(names)}, = args",
                 "        except ValueError: raise _Fail"]
    tail = g.env_lines("env") + g.deferred_lines() + [
        "env['__device__'] = dev if dev is not None else _CPU", "return env"]
    src = "\n".join(head + _indent(g.inits, 2) + g.lines + _indent(tail, 2)
                    + ["      except _Fail: pass"] + _slow_tail(slow, "_r")) + "\n"
    return src, g.consts


def gen_as_checker(spec: TensorFields) -> tuple[str, dict[str, object]]:
    """The source of ``check(x, env, checks_on, values_on) -> x`` for one ``as``."""
    g = _CheckerGen("raise _Fail", as_mode=True)
    keys = [a for a in spec.axes if isinstance(a, str)]
    keys += [a[1] for a in spec.axes if isinstance(a, tuple) and a[0] == "lin"]
    if isinstance(spec.dtype, tuple):
        keys.append(spec.dtype[0])
    if spec.domain is not None and isinstance(spec.domain.index, str):
        keys.append(spec.domain.index)
    preload = []
    for key in dict.fromkeys(keys):
        preload.append(f"{g.var(key)} = env.get({key!r})")
        g.state[key] = "maybe"
    g.tensor("x", spec)
    head = [
        "def check(x, env=None, checks_on=True, values_on=True):",
        "    env_in = env",            # the slow path gets the caller's env, not ours
        "    if checks_on:",
        "      try:",
        "        if env is None: env = _EMPTY",
        "        dev = env.get('__device__')",
        "        if dev is None: dev = _EFF[0]",
    ] + _indent(preload, 2)
    tail = []
    if g.deferred:
        tail = ["env = dict(env)"] + [ln.replace("env = {", "env.update({", 1) + ")"
                                      if i == 0 else ln
                                      for i, ln in enumerate(g.env_lines("env"))]
        tail += g.deferred_lines()
    tail.append("return x")
    g.consts["_EMPTY"] = {}
    g.consts["_axd"] = _axis_dim
    slow = "_slow(x, env_in, checks_on, values_on)"
    src = "\n".join(head + _indent(g.inits, 2) + g.lines + _indent(tail, 2)
                    + ["      except _Fail: pass"] + _slow_tail(slow, "_r")) + "\n"
    return src, g.consts
