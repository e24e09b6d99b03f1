"""Reductions kept with ``keepdim=True`` where they are only broadcast back.

``x - mean(x, over=D)`` on ``x: [b n D]`` broadcasts the ``[b n]`` mean back along the
axis it reduced: the broadcasting plan inserts that axis with ``unsqueeze(2)``. Written
by hand it is ``x - x.mean(2, keepdim=True)``: the same values, one operation (and one
autograd node, forward and backward) fewer. ``keepdim_sites`` finds, in one function's
body, the reductions whose every use is such a broadcast back, so the code generator
emits them with ``keepdim=True`` and drops the plans that would re-insert the axes.

A *kept* expression is one whose value, computed with ``keepdim=True``, holds the reduced
axes as size-1 axes where they were. It is

- a reduction whose value is of its operand's kind (the registry's ``KEEPDIM_NAMES``:
  ``sum``, ``mean``, ``max`` …; one reduced a call per axis, ``prod``, over one axis)
  over listed axes of a non-mask tensor;
- a local assigned once, from a kept expression, whose every use is inside a kept
  expression that is broadcast back;
- ``+ - * /`` (or ``add``, ``sub``, ``mul``, ``div``) of kept expressions reducing the same
  axes of tensors of the same rank, or of one with host numbers and ``[]`` tensors, without
  a broadcasting plan of their own; ``-`` of one; a prelude's element-wise function
  (``sqrt``, ``exp``, ``gelu`` …) of one.

It is *broadcast back* where it is an operand of ``+ - * /`` (or ``add`` …) whose plan
inserts exactly the reduced axes, at the positions they were reduced from, and permutes
nothing: there ``unsqueeze`` would rebuild the ``keepdim`` shape. Anything else (a return,
an index, a call of a user's function) sees the reduced type, so a local used there is
left as it was. The analysis is per function and conservative: a node the parser shares
between two places turns it off for the function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shapescript.builtin_registry import ARITH_OPS, BUILTINS_BY_NAME, KEEPDIM_NAMES
from shapescript.check.env import PRELUDE_FILES
from shapescript.check.payloads import Elementwise, Reduction
from shapescript.check.resolutions import BuiltinCall, ExprArg, ExternCall, LocalName
from shapescript.check.result import BroadcastRes, CheckedModule
from shapescript.check.types import HostType, TensorType
from shapescript.syntax import ast

__all__ = ["NO_KEEPDIMS", "KeepDims", "keepdim_sites", "keeps"]

_ARITH = ARITH_OPS
# The prelude's externs that work element by element on their first argument.
_ELEMENTWISE = frozenset({
    "torch.exp", "torch.log", "torch.sqrt", "torch.square", "torch.abs", "torch.sin",
    "torch.cos", "torch.tanh", "torch.sigmoid", "torch.relu", "torch.clamp",
    "torch.nn.functional.silu", "torch.nn.functional.gelu",
})


@dataclass(frozen=True)
class KeepDims:
    """What one function's code generation changes: the ids of the reduction calls to
    emit with ``keepdim=True`` and of the operands whose broadcasting plan to drop."""

    reductions: frozenset[int] = frozenset()
    unplanned: frozenset[int] = frozenset()


NO_KEEPDIMS = KeepDims()

# A kept expression's key: the reduced positions and the rank of the reduced tensor.
Key = tuple[tuple[int, ...], int]


def keeps(name: str, dims: tuple[int, ...] | None, arg_type: Any) -> bool:
    """Whether the reduction ``name`` over ``dims`` of a value of ``arg_type`` is emitted
    with ``keepdim=True`` when asked: over listed axes of a non-mask tensor."""
    if name not in KEEPDIM_NAMES or not dims:
        return False
    if not isinstance(arg_type, TensorType) or arg_type.dtype == "bool" or arg_type.has_variadic:
        return False
    # Several axes reduced one call each: the keepdim shape would need each call's.
    return not BUILTINS_BY_NAME[name].stepwise or len(dims) == 1


def _positional(e: ast.Call) -> list[ast.Expr]:
    return [a.value for a in e.args if a.name is None]


class _Pass:
    """One walk over a body for a set of candidate locals (name → key)."""

    def __init__(self, cm: CheckedModule, cands: dict[str, Key]) -> None:
        self.cm, self.cands = cm, cands
        self.bad: set[str] = set()
        self.reductions: set[int] = set()
        self.unplanned: set[int] = set()

    # -- what is kept -----------------------------------------------------------------
    def key(self, e: Any) -> Key | None:
        """The key of ``e`` when it is a kept expression, else None."""
        cm = self.cm
        if isinstance(e, ast.Name):
            res = cm.res.get(e)
            if _local(res) and e.id in self.cands:
                return self.cands[e.id]
            return None
        if isinstance(e, ast.UnaryOp):
            return self.key(e.operand) if e.op == "-" else None
        if isinstance(e, ast.BinOp):
            if e.op not in _ARITH or isinstance(cm.res.get(e), BroadcastRes):
                return None
            return self.joined(e.left, e.right)
        if isinstance(e, ast.Call):
            res = cm.res.get(e)
            if isinstance(res, BuiltinCall):
                args = _positional(e)
                match res.data:
                    case Elementwise(op, None) if op in _ARITH and len(args) == 2:
                        return self.joined(args[0], args[1])
                    case Reduction(dims) if res.name in KEEPDIM_NAMES and len(args) == 1:
                        t: Any = cm.types.get(args[0])
                        if keeps(res.name, dims, t):
                            assert dims is not None
                            return tuple(sorted(dims)), t.rank
                return None
            if isinstance(res, ExternCall) and self.elementwise(res):
                first = res.args[0]
                assert isinstance(first, ExprArg)
                return self.key(first.node)
        return None

    def elementwise(self, res: ExternCall) -> bool:
        sig = res.sig
        if sig.file not in PRELUDE_FILES or sig.extern not in _ELEMENTWISE:
            return False
        if not res.args or not isinstance(res.args[0], ExprArg) or res.args[0].wrap is not None:
            return False
        rest = list(res.args[1:]) + [a for _, a in res.kwargs]
        return all(not isinstance(a, ExprArg) or isinstance(self.cm.types.get(a.node), HostType)
                   for a in rest)

    def scalar(self, e: Any) -> bool:
        t = self.cm.types.get(e)
        return isinstance(t, HostType) or (isinstance(t, TensorType) and t.rank == 0)

    def joined(self, a: Any, b: Any) -> Key | None:
        ka, kb = self.key(a), self.key(b)
        if ka is not None and kb is not None:
            return ka if ka == kb else None
        if ka is not None and self.scalar(b):
            return ka
        if kb is not None and self.scalar(a):
            return kb
        return None

    # -- the walk -----------------------------------------------------------------------
    def kept(self, e: Any) -> None:
        """Walks a kept expression ``e``, recording its reductions; its other parts (a
        reduction's argument, host numbers) are walked as ordinary code."""
        cm = self.cm
        if isinstance(e, ast.Name):
            return
        if isinstance(e, ast.UnaryOp):
            self.kept(e.operand)
            return
        if isinstance(e, ast.BinOp):
            self.side(e.left)
            self.side(e.right)
            return
        res = cm.res.get(e)
        assert isinstance(e, ast.Call) and isinstance(res, (BuiltinCall, ExternCall))
        if isinstance(res, ExternCall):
            first = res.args[0]
            assert isinstance(first, ExprArg)
            self.kept(first.node)
            for a in list(res.args[1:]) + [a for _, a in res.kwargs]:
                if isinstance(a, ExprArg):
                    self.plain(a.node)
            return
        args = _positional(e)
        if res.name in _ARITH.values():
            self.side(args[0])
            self.side(args[1])
            return
        self.reductions.add(id(e))
        self.plain(args[0])
        for arg in e.args:
            if arg.name is not None:
                self.plain(arg.value)

    def side(self, e: Any) -> None:
        if self.key(e) is not None:
            self.kept(e)
        else:
            self.plain(e)

    def operand(self, e: Any, plan: Any) -> None:
        """An operand of a broadcasting ``+ - * /`` with its plan ``plan``."""
        key = self.key(e)
        if key is not None and plan is not None and plan.permute is None and plan.index is not None:
            dims, rank = key
            inserted = tuple(i for i, k in enumerate(plan.index) if not k)
            if inserted == dims and len(plan.index) == rank:
                self.unplanned.add(id(e))
                self.kept(e)
                return
        self.plain(e)

    def plain(self, e: Any) -> None:
        """Walks ordinary code: a candidate local met here is used as its reduced type."""
        cm = self.cm
        if isinstance(e, ast.Name):
            res = cm.res.get(e)
            if _local(res) and e.id in self.cands:
                self.bad.add(e.id)
            return
        if isinstance(e, ast.BinOp) and e.op in _ARITH:
            res = cm.res.get(e)
            if isinstance(res, BroadcastRes):
                self.operand(e.left, res.left)
                self.operand(e.right, res.right)
                return
        if isinstance(e, ast.Call):
            res = cm.res.get(e)
            if isinstance(res, BuiltinCall) and isinstance(res.data, Elementwise) \
                    and res.data.op in _ARITH:
                args = _positional(e)
                plan = res.data.plan
                if plan is not None and len(args) == 2:
                    self.operand(args[0], plan.left)
                    self.operand(args[1], plan.right)
                    for a in e.args:
                        if a.name is not None:
                            self.plain(a.value)
                    return
        for c in _children(e):
            self.plain(c)

    def stmt(self, s: Any) -> None:
        if isinstance(s, ast.Assign):
            t = s.targets[0] if len(s.targets) == 1 else None
            if (isinstance(t, ast.Name) and s.annotation is None and t.id in self.cands
                    and self.key(s.value) == self.cands[t.id]):
                self.kept(s.value)
            else:
                if isinstance(t, ast.Name) and t.id in self.cands:
                    self.bad.add(t.id)
                self.plain(s.value)
                for x in s.targets:
                    if not isinstance(x, ast.Name):
                        self.plain(x)
            return
        for c in _children(s):
            if isinstance(c, (ast.Assign, ast.Return, ast.If, ast.IfBranch, ast.For, ast.With,
                              ast.ExprStmt)):
                self.stmt(c)
            else:
                self.plain(c)


def _local(res: Any) -> bool:
    """Whether a name's resolution is a local (as ``ExprGen.g_Name`` reads it)."""
    return res is None or isinstance(res, LocalName)


def _is_node(x: Any) -> bool:
    return hasattr(x, "__dataclass_fields__") and hasattr(x, "span")


def _children(node: Any) -> list[Any]:
    out: list[Any] = []

    def add(v: Any) -> None:
        if _is_node(v):
            out.append(v)
        elif isinstance(v, tuple):
            for x in v:
                add(x)

    for name in node.__dataclass_fields__:
        if name in ("span", "pattern", "target", "type", "annotation", "shape"):
            continue  # patterns, types and sizes hold no values
        add(getattr(node, name))
    return out


def _shares_nodes(body: Any) -> bool:
    seen: set[int] = set()
    stack = list(body) if isinstance(body, tuple) else [body]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            return True
        seen.add(id(n))
        stack.extend(_children(n))
    return False


def _assigned(body: Any, params: tuple[str, ...]) -> dict[str, list[ast.Assign]]:
    """Each name bound in ``body`` (parameters, assignments, loop and lambda variables)
    → its plain assignments (``name = …``); a name bound another way maps to ``[]`` and
    a second binding too."""
    binds: dict[str, list[Any]] = {p: [None] for p in params}
    stack = list(body) if isinstance(body, tuple) else [body]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    binds.setdefault(t.id, []).append(n if len(n.targets) == 1 else None)
        elif isinstance(n, ast.For):
            for name in n.targets:
                binds.setdefault(name, []).append(None)
        elif isinstance(n, ast.Lambda):
            for name in n.params:
                binds.setdefault(name, []).append(None)
        stack.extend(_children(n))
    return {k: v for k, v in binds.items()}


def keepdim_sites(cm: CheckedModule, decl: ast.FnDecl) -> KeepDims:
    """The reductions of ``decl``'s body to keep with ``keepdim=True`` and the operands
    whose plan to drop (see the module's doc); nothing when there are none."""
    body = decl.body
    if _shares_nodes(body):
        return NO_KEEPDIMS
    binds = _assigned(body, tuple(p.name for p in decl.params))
    once = {k: v[0] for k, v in binds.items() if len(v) == 1 and v[0] is not None}
    stmts = body if isinstance(body, tuple) else (ast.Return(body, body.span),)
    excluded: set[str] = set()
    # Each round either settles or excludes a local for good, so rounds are bounded.
    for _ in range(len(once) + 1):
        cands = _settle(cm, {k: v for k, v in once.items() if k not in excluded})
        p = _Pass(cm, cands)
        for s in stmts:
            p.stmt(s)
        if not p.bad:
            if not p.reductions and not p.unplanned:
                return NO_KEEPDIMS
            return KeepDims(frozenset(p.reductions), frozenset(p.unplanned))
        excluded |= p.bad
    return NO_KEEPDIMS


def _settle(cm: CheckedModule, once: dict[str, ast.Assign]) -> dict[str, Key]:
    """The candidates among the locals assigned once (``once``) and their keys: a local
    whose value is kept, given the others. A value may read other candidates, so keys
    are found again until they stop changing (nothing, if they never do)."""
    cands: dict[str, Key] = {}
    for _ in range(len(once) + 1):
        probe = _Pass(cm, cands)
        new = {}
        for name, assign in once.items():
            k = probe.key(assign.value)
            if k is not None:
                new[name] = k
        if new == cands:
            return cands
        cands = new
    return {}
