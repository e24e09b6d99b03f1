"""What an engine needs to know of one attention of a servable forward function, read
from the checked tree: its sliding window, and how its keys and values reach H heads.

An engine keeps keys and values in its cache with as many heads as the model computes
(Hkv) and repeats them to the H query heads inside its attention kernel, each key head
serving R = H / Hkv neighbouring query heads (transformers' ``repeat_kv``, torch's
``enable_gqa``). The source writes that repeat before the attention, as the attention's
types ask: ``repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)``. ``kv_grouping`` finds it, so
that an exporter can leave it to the engine; a repeat in another order, or whose result
is used for more than the attention, can't be left to it (E3307).
"""

from __future__ import annotations

from dataclasses import dataclass

from shapescript.check.env import SizeParam
from shapescript.check.resolutions import BuiltinCall, ExprArg, FnCall, LocalName
from shapescript.check.result import CheckedModule
from shapescript.check.types import HostType, TensorType
from shapescript.syntax import ast

__all__ = ["Grouping", "kv_grouping", "mask_window", "padding_refusal"]


@dataclass(frozen=True)
class Grouping:
    """How one attention's keys and values reach H heads."""

    kv_heads: int | None                 # Hkv; None: they have H heads of their own
    repeats: tuple[ast.Call, ...] = ()   # the repeats an engine does itself (keys, values)
    refusal: str | None = None           # why an engine can't group them (E3307)


def mask_window(cm: CheckedModule, mask: ast.Constructor,
                window: ast.Expr | None = None) -> tuple[int | None, str | None]:
    """The window of ``causal[n n](window=W)`` (None: no window), or why an engine can't
    know it: it must be a whole number of at least 1 known before the model runs.
    ``window``: the caller's argument for it, when the mask is a helper's (``helper_mask``)."""
    fill = window if window is not None else mask.fill
    if fill is None:
        return None, None
    t = cm.types.get(fill)
    if not isinstance(t, HostType) or not isinstance(t.value, int) or isinstance(t.value, bool):
        return None, "a window the engine can't know before the model runs"
    if t.value < 1:
        return None, f"a window of {t.value} positions, which hides every key"
    return t.value, None


def helper_mask(cm: CheckedModule, mask: ast.Expr) -> tuple[ast.Constructor, ast.Expr | None] | None:
    """For ``attn_mask=window(n, W)``, a call of a one-line ``fn`` whose body is the
    causal mask of its size parameters (``fn window(n: Size, w: Size) -> [n n] Mask =
    causal[n n](window=w)``): that mask, and the caller's argument for its window (None for
    none); None for any other mask."""
    res = cm.res.get(mask) if isinstance(mask, ast.Call) else None
    if not isinstance(res, FnCall) or not isinstance(res.sig.decl, ast.FnDecl):
        return None
    body, sig = res.sig.decl.body, res.sig
    if not (isinstance(body, ast.Constructor) and body.name == "causal"):
        return None
    sizes = {p.name: i for i, p in enumerate(sig.params) if isinstance(p.type, SizeParam)}
    if body.fill is None:
        return body, None
    if not (isinstance(body.fill, ast.Name) and body.fill.id in sizes):
        return None
    arg = res.args[sizes[body.fill.id]] if sizes[body.fill.id] < len(res.args) else None
    return (body, arg.node) if isinstance(arg, ExprArg) else None


def padding_refusal(mixing: list[str], attentions: list[tuple[object, ast.Call, frozenset[str]]]
                    ) -> tuple[str | None, list[ast.Call]]:
    """Whether padded input can be masked: (None, the attentions to mask) when positions
    mix only in attention (``mixing``: where else they do) and each attention along the
    token axis has its keys along it, so hiding padded keys keeps every real token's
    result; else (why not, []). ``attentions``: each attention's key type, call, and the
    names of the token axis there."""
    if mixing:
        return mixing[0], []
    calls = []
    for t, call, nvars in attentions:
        if not isinstance(t, TensorType) or len(t.axes) != 4:
            continue
        size = t.axes[2].size
        if not (size.free_vars() & nvars):
            continue
        if size.var_name not in nvars or not t.axes[0].size.var_name:
            return (f"an attention whose keys aren't the tokens themselves, at "
                    f"{call.span.file}:{call.span.line}"), []
        calls.append(call)
    return None, calls


def kv_grouping(cm: CheckedModule, body: tuple[ast.Stmt, ...], call: ast.Call,
                key: ast.Expr, value: ast.Expr, kv_args: set[int]) -> Grouping:
    """How the keys ``key`` and values ``value`` of the attention ``call`` (in a function
    whose statements are ``body``) reach H heads; ``kv_args``: the ids of the key and
    value arguments of every attention there (where a repeated value may be read)."""
    k = _repeat_of(cm, body, call, key, kv_args)
    v = _repeat_of(cm, body, call, value, kv_args)
    why = k[2] or v[2]
    if why is None and (k[0] is None) != (v[0] is None):
        why = "keys and values aren't repeated alike"
    if why is None and k[1] != v[1]:
        why = f"{k[1]} key heads but {v[1]} value heads"
    if why is not None:
        return Grouping(None, refusal=why)
    if k[0] is None or v[0] is None:
        return Grouping(None)
    return Grouping(k[1], (k[0], v[0]))


def _repeat_of(cm: CheckedModule, body: tuple[ast.Stmt, ...], call: ast.Call,
               arg: ast.Expr, kv_args: set[int]) -> tuple[ast.Call | None, int | None, str | None]:
    """(the repeat that gives ``arg``, Hkv, None), (None, None, None) when no repeat gives
    it, or (None, None, why an engine can't do the repeat)."""
    node: ast.Expr = arg
    if isinstance(arg, ast.Name) and isinstance(cm.res.get(arg), LocalName):
        bound = _binding(body, call, arg.id)
        if bound is None:
            return None, None, None
        node, uses = bound
        if not isinstance(node, ast.Call) or not _is_repeat(cm, node):
            return None, None, None
        if any(id(u) not in kv_args for u in uses):
            return None, None, f"the repeated `{arg.id}` is used for more than attention"
    if not isinstance(node, ast.Call) or not _is_repeat(cm, node):
        return None, None, None
    heads = _plain_group(cm, node)
    if heads is None:
        return None, None, ("a repeat other than each key head serving neighbouring query "
                            "heads, `repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)`")
    return node, heads, None


def _is_repeat(cm: CheckedModule, node: ast.Call) -> bool:
    res = cm.res.get(node)
    return isinstance(res, BuiltinCall) and res.name == "repeat" and node.pattern is not None


def _plain_group(cm: CheckedModule, node: ast.Call) -> int | None:
    """Hkv of ``repeat(x, b h n d -> b (h r) n d)``, or None for another repeat."""
    pat = node.pattern
    assert isinstance(pat, ast.Pattern)
    if len(pat.inputs) != 1 or len(pat.inputs[0]) != 4 or len(pat.output) != 4:
        return None
    ins, out = pat.inputs[0], pat.output
    if not all(isinstance(t, ast.PatName) for t in ins):
        return None
    names = [t.name for t in ins if isinstance(t, ast.PatName)]
    for i in (0, 2, 3):
        o = out[i]
        if not (isinstance(o, ast.PatName) and o.name == names[i]):
            return None
    group = out[1]
    if not (isinstance(group, ast.PatGroup) and len(group.items) == 2):
        return None
    first, rep = group.items
    if not (isinstance(first, ast.PatName) and first.name == names[1]
            and isinstance(rep, ast.PatName) and rep.name not in names):
        return None
    args = [a.value for a in node.args if a.name is None]
    t = cm.types.get(args[0]) if args else None
    if not isinstance(t, TensorType) or len(t.axes) != 4 or not t.axes[1].size.is_const:
        return None
    return t.axes[1].size.const_value


def _binding(body: tuple[ast.Stmt, ...], call: ast.Call,
             name: str) -> tuple[ast.Expr, list[ast.Name]] | None:
    """The value last assigned to ``name`` at the top level of ``body`` before the
    statement holding ``call``, and where that value is read (None: no such assignment
    there)."""
    at = next((i for i, s in enumerate(body) if any(x is call for x in _walk(s))), None)
    if at is None:
        return None
    for i in range(at - 1, -1, -1):
        s = body[i]
        if isinstance(s, ast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], ast.Name) and s.targets[0].id == name:
            uses: list[ast.Name] = []
            for later in body[i + 1:]:
                uses += [x for x in _walk(later) if isinstance(x, ast.Name) and x.id == name
                         and not _assigns(later, x)]
                if isinstance(later, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == name for t in later.targets):
                    break
            return s.value, uses
        if any(isinstance(x, (ast.Assign, ast.For)) and _binds(x, name) for x in _walk(s)):
            return None  # bound in a nested block, or destructured: not followed
    return None


def _binds(stmt: ast.Assign | ast.For, name: str) -> bool:
    if isinstance(stmt, ast.For):
        return name in stmt.targets
    return any(isinstance(x, ast.Name) and x.id == name for t in stmt.targets for x in _walk(t))


def _assigns(stmt: ast.Stmt, name: ast.Name) -> bool:
    return any(t is name for t in getattr(stmt, "targets", ()))


def _walk(node: object):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for f in getattr(n, "__dataclass_fields__", {}):
            if f == "span":
                continue
            v = getattr(n, f)
            for x in (v if isinstance(v, tuple) else (v,)):
                if hasattr(x, "__dataclass_fields__"):
                    stack.append(x)
