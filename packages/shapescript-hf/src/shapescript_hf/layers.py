"""The layered layout of a Hugging Face folder: each layer a module of ``nn.Linear``s
under the usual names, and what tensor and pipeline parallelism may split.

A forward function fits when its layers are one loop over stacked weights, each turn
one call of a block function that takes the model, the carried hidden states and the
layer's index::

    for l in 0..L:
        x = block(m, x, c, s, l)

and the block reads the model only as ``m.w[l]`` of fields stacked along ``L``. Then
``ShapeScriptDecoderLayer`` holds layer ``l``'s slices and runs ``block`` on itself
(``m.w[l]`` reads its own weight), so an engine can shard each projection, leave a
layer out of a pipeline stage, or trace one layer. The roles of the projections come
from the data flow of the block's functions: the three ``linear``s reaching an
attention's query, key and value are ``q_proj``, ``k_proj``, ``v_proj``; the one that
takes the attention's result ``o_proj``; in the feed-forward function ``gate_proj`` (the
one an activation takes), ``up_proj`` and ``down_proj`` (the one that takes the others);
the norm before each ``input_layernorm`` and ``post_attention_layernorm``. A field of
another role keeps its name in the layer.

The splits follow the fields' types: a projection whose output axis is ``(H Dh)`` splits
along H (colwise), one whose input axis is splits there too (rowwise); ``F`` of the
feed-forward layer likewise; the output layer along V. A degree is legal when it divides
every split axis (``degrees``).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Layout", "Split", "layout_of", "tp_problems"]

_LINEAR = "torch.nn.functional.linear"
_NORMS = ("shapescript.rt.rms_norm", "shapescript.rt.layer_norm")
_ACTIVATIONS = ("silu", "gelu", "relu", "sigmoid", "tanh", "gelu_tanh", "mish")


@dataclass(frozen=True)
class Split:
    """One axis tensor parallelism splits: the field, its type as written, the axis's
    words (``H*Dh``), the dim it splits along (``H``) and that dim's size."""

    field: str
    written: str
    axis: str
    dim: str
    size: int
    what: str          # "query heads", "key and value heads", "feed-forward width", …


@dataclass
class Layout:
    """How a folder lays out its layers; ``reason`` says why it keeps them stacked."""

    reason: str | None = None
    block: str | None = None           # the block function's name
    block_key: str | None = None       # its key in the compiled functions' names
    block_params: list[str] = field(default_factory=list)   # its parameters' names
    loop_call: Any = None              # the call of the block in the loop
    block_args: tuple[int, int, int] = (0, 1, 2)   # the block's model, states, index
    loop_var: str | None = None
    layers: int = 0
    # Each stacked field's place in a layer: (module path, attribute), "" for the layer.
    paths: dict[str, tuple[str, str]] = field(default_factory=dict)
    linears: dict[str, tuple[int, int, bool]] = field(default_factory=dict)  # path: in, out, bias
    # path: (eps, whether an RMS norm, whether it has a bias)
    norms: dict[str, tuple[float | None, bool, bool]] = field(default_factory=dict)
    tp_plan: dict[str, str] = field(default_factory=dict)
    splits: list[Split] = field(default_factory=list)
    final_norm: str | None = None      # the field of the norm after the layers
    final_eps: float | None = None
    pp_reason: str | None = None       # why the layers can't be staged (None: they can)

    @property
    def layered(self) -> bool:
        return self.reason is None

    def tp_degrees(self, vocab: int | None) -> list[int]:
        """The legal tensor-parallel degrees: the divisors of every split axis."""
        if not self.layered:
            return [1]
        g = 0
        for s in self.splits:
            g = math.gcd(g, s.size)
        if vocab is not None:
            g = math.gcd(g, vocab)
        return [d for d in range(1, g + 1) if g % d == 0] if g else [1]

    def pp_degrees(self) -> list[int]:
        """The legal pipeline degrees: one layer a stage at least."""
        if not self.layered or self.pp_reason is not None:
            return [1]
        return list(range(1, self.layers + 1))

    @property
    def pp_plan(self) -> dict[str, tuple[list[str], list[str]]]:
        if not self.layered or self.pp_reason is not None:
            return {}
        return {"embed_tokens": (["input_ids"], ["inputs_embeds"]),
                "layers": (["hidden_states"], ["hidden_states"]),
                "norm": (["hidden_states"], ["hidden_states"])}


def _name(x: Any) -> str:
    return type(x).__name__


def _walk(node: Any, stop: frozenset[int] | set[int] = frozenset()) -> Iterator[Any]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if id(n) in stop:
            continue
        for name in getattr(n, "__dataclass_fields__", {}):
            if name == "span":
                continue
            v = getattr(n, name)
            for x in (v if isinstance(v, tuple) else (v,)):
                if hasattr(x, "__dataclass_fields__"):
                    stack.append(x)


def _stmts(body: Any) -> Iterator[Any]:
    """Every statement of a body, in order, into loops and branches."""
    for s in (body if isinstance(body, tuple) else ()):
        yield s
        for inner in ("body", "orelse"):
            yield from _stmts(getattr(s, inner, ()))
        for branch in getattr(s, "branches", ()) or ():
            yield from _stmts(getattr(branch, "body", ()))


class _Fn:
    """One function of the block's reach: its checked module, its assignments in order,
    its calls of externs by their Python path."""

    def __init__(self, sig: Any, cm: Any) -> None:
        self.sig, self.cm = sig, cm
        self.assigns: list[tuple[str, Any, int]] = []
        body = sig.decl.body
        for k, s in enumerate(_stmts(body if isinstance(body, tuple) else ())):
            if _name(s) == "Assign":
                names = [t.id for t in s.targets if _name(t) == "Name"]
                for n in names:
                    self.assigns.append((n, s.value, k))

    def extern(self, call: Any) -> str | None:
        res = self.cm.res.get(call)
        return res.sig.extern if _name(res) == "ExternCall" else None

    def arg(self, call: Any, param: str) -> Any:
        """The node of an extern call's argument ``param`` (None: not given)."""
        res = self.cm.res.get(call)
        names = [p.name for p in res.sig.params]
        vals = list(res.args)
        for k, v in res.kwargs:
            if k in names:
                while len(vals) <= names.index(k):
                    vals.append(None)
                vals[names.index(k)] = v
        i = names.index(param) if param in names else len(vals)
        v = vals[i] if i < len(vals) else None
        return v.node if _name(v) == "ExprArg" else None  # type: ignore[union-attr]

    def reaches(self, node: Any, before: int | None = None,
                stop: frozenset[int] = frozenset()) -> Iterator[Any]:
        """Every node ``node``'s value depends on in this function, through its locals
        (each name by its assignment before ``before``), but not through the nodes of
        ``stop`` (which are given, not entered)."""
        seen: set[int] = set()
        stack: list[tuple[Any, int | None]] = [(node, before)]
        while stack:
            n, at = stack.pop()
            for x in _walk(n, stop - {id(node)}):
                if id(x) in seen:
                    continue
                seen.add(id(x))
                yield x
                if _name(x) == "Name":
                    found = [(v, k) for name, v, k in self.assigns
                             if name == x.id and (at is None or k < at)]
                    if found:
                        v, k = found[-1]
                        stack.append((v, k))

    def stmt_of(self, node: Any) -> int | None:
        for name, v, k in self.assigns:
            if any(x is node for x in _walk(v)):
                return k
        return None


def _field_index(fn: _Fn, node: Any) -> str | None:
    """The field ``F`` of ``m.F[l]``, or None."""
    if _name(node) != "Index" or _name(node.value) != "Attr":
        return None
    res = fn.cm.res.get(node.value)
    return res.name if _name(res) == "FieldName" else None


def _reached(sig: Any, program: Any) -> list[_Fn]:
    out: list[_Fn] = []
    seen: set[int] = set()
    stack = [sig]
    while stack:
        s = stack.pop()
        if id(s) in seen or s.is_extern:
            continue
        seen.add(id(s))
        cm = program.modules.get(s.file)
        if cm is None:
            continue
        out.append(_Fn(s, cm))
        for node in _walk(s.decl):
            res = cm.res.get(node)
            if _name(res) == "FnCall":
                stack.append(res.sig)
    return out


def _const(fn: _Fn, node: Any) -> float | None:
    if node is None:
        return None
    if _name(node) == "Num":
        return float(node.value)
    res = fn.cm.res.get(node)
    if _name(res) == "ConstName":
        try:
            return float(res.value)
        except (TypeError, ValueError):
            return None
    return None


class _Stacked(Exception):
    """Why the forward keeps its stacked layout; raised by the steps of ``layout_of``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class _Loop:
    """The forward's loop over its layers and the block call in its body."""

    loop: Any
    var: str
    carried: str
    call: Any
    block: Any                      # the block function's signature
    args: tuple[int, int, int]      # where the model, the states and the index go
    layers: int


@dataclass
class _Roles:
    """What the block's projections and norms are, by field name."""

    roles: dict[str, str] = field(default_factory=dict)
    norms: dict[str, tuple[str, Any, _Fn]] = field(default_factory=dict)
    biases: dict[str, str] = field(default_factory=dict)   # bias field: weight field


def layout_of(plan: Any) -> Layout:
    """The layered layout of ``plan``'s forward function, or why it keeps the stacked
    one (``Layout.reason``)."""
    if not plan.servable or not plan.split or not plan.language_model:
        return Layout("an engine can't serve it, so nothing is split")
    try:
        lp = _find_loop(plan.source)
        fns = _reached(lp.block, plan.source.program)
        _block_alone(plan.source, lp, fns)
        used = _fields_used(plan.source, fns, lp.layers)
        roles = _find_roles(plan.form, fns)
    except _Stacked as e:
        return Layout(e.reason)
    src = plan.source
    block = lp.block
    key = block.name if block.file == src.program.main.env.path else \
        f"{os.path.basename(block.file)}:{block.name}"
    lay = Layout(block=block.name, block_key=key, loop_var=lp.var, layers=lp.layers,
                 block_params=[p.name for p in block.params], loop_call=lp.call,
                 block_args=lp.args)
    _place(lay, src.fields, fns, used, roles)
    _plan_splits(lay, plan, roles.roles)
    _pipeline(lay, plan, lp.loop, lp.carried)
    return lay


def _find_loop(src: Any) -> _Loop:
    """The one loop ``for l in 0..L: x = block(m, x, …, l)`` of the forward."""
    cm = src.program.main
    decl = src.sig.decl
    mname = src.sig.params[0].name
    body = decl.body if isinstance(decl.body, tuple) else ()
    loops = [s for s in body if _name(s) == "For"]
    if len(loops) != 1 or len(loops[0].targets) != 1 or _name(loops[0].iter) != "Range":
        raise _Stacked(f"`{src.fn}` has no one loop `for l in 0..L` over its layers")
    loop = loops[0]
    lvar = loop.targets[0]
    not_one_call = ("the loop's body isn't one call `x = block(m, x, …, l)` of a block "
                    "function")
    if len(loop.body) != 1 or _name(loop.body[0]) != "Assign" or len(loop.body[0].targets) != 1:
        raise _Stacked(not_one_call)
    stmt = loop.body[0]
    carried = stmt.targets[0].id if _name(stmt.targets[0]) == "Name" else None
    call = stmt.value
    res = cm.res.get(call)
    if carried is None or _name(call) != "Call" or _name(res) != "FnCall":
        raise _Stacked(not_one_call)
    args = [a.node if _name(a) == "ExprArg" else None for a in res.args]
    ids = [a.id if _name(a) == "Name" else None for a in args]  # type: ignore[union-attr]
    if ids.count(mname) != 1 or ids.count(carried) != 1 or ids.count(lvar) != 1:
        raise _Stacked(f"the block `{res.sig.name}` doesn't take the model, `{carried}` and "
                       f"`{lvar}` once each")
    hi = loop.iter.hi
    layers = None
    if _name(loop.iter.lo) == "Num" and loop.iter.lo.value == 0:
        hres = cm.res.get(hi)
        layers = (hres.value if _name(hres) == "DimName" else
                  hi.value if _name(hi) == "Num" else None)
    if not isinstance(layers, int) or layers < 1:
        raise _Stacked("the loop doesn't run from 0 to a dim")
    return _Loop(loop, lvar, carried, call, res.sig,
                 (ids.index(mname), ids.index(carried), ids.index(lvar)), layers)


def _block_alone(src: Any, lp: _Loop, fns: list[_Fn]) -> None:
    """The block's functions run only from the loop, and nothing else reads a stacked
    field: a layer module holds all that touches its slices."""
    cm = src.program.main
    reach = {id(f.sig) for f in fns}
    for node in _walk(src.sig.decl):
        r = cm.res.get(node)
        if node is not lp.call and _name(r) == "FnCall" and id(r.sig) in reach:
            raise _Stacked(f"`{src.fn}` calls `{r.sig.name}` outside the loop too")
    for g in _reached(src.sig, src.program):
        if id(g.sig) in reach:
            continue
        for node in _walk(g.sig.decl):
            r = g.cm.res.get(node)
            if _name(r) == "FieldName" and \
                    src.fields.get(r.name, ((),))[0][:1] == (lp.layers,):
                raise _Stacked(f"`{g.sig.name}` reads the stacked `{r.name}` outside the "
                               "block")


def _fields_used(src: Any, fns: list[_Fn], layers: int) -> dict[str, list[tuple[_Fn, Any]]]:
    """The stacked fields the block reads, each with where it reads its layer's slice."""
    stacked = {n for n, (shape, _) in src.fields.items() if shape and shape[0] == layers}
    used: dict[str, list[tuple[_Fn, Any]]] = {}
    for f in fns:
        for node in _walk(f.sig.decl):
            r = f.cm.res.get(node)
            if _name(r) != "FieldName":
                continue
            if r.name not in stacked:
                raise _Stacked(f"the block reads `{r.name}`, which isn't stacked along its "
                               "layers")
            used.setdefault(r.name, [])
        for node in _walk(f.sig.decl):
            name = _field_index(f, node)
            if name is not None:
                if len(node.indices) != 1 or _name(node.indices[0]) != "Name":
                    raise _Stacked(f"the block reads `{name}` other than at its layer's "
                                   "index")
                used[name].append((f, node))
    missing = [n for n in used if not used[n]]
    if missing:
        raise _Stacked(f"the block reads `{missing[0]}` whole, not one layer's")
    return used


def _linears(f: _Fn, biases: dict[str, str]) -> list[tuple[Any, str]]:
    """The ``linear`` calls of ``f`` on a layer's weight, with the weight's field; the
    bias fields they take go into ``biases``."""
    lins = []
    for node in _walk(f.sig.decl):
        if _name(node) == "Call" and f.extern(node) == _LINEAR:
            w = f.arg(node, "weight")
            name = _field_index(f, w) if w is not None else None
            if name is not None:
                lins.append((node, name))
                b = f.arg(node, "bias")
                bname = _field_index(f, b) if b is not None else None
                if bname is not None:
                    biases[bname] = name
    return lins


def _find_roles(form: Any, fns: list[_Fn]) -> _Roles:
    """The roles of the block's projections and norms, from the data flow around its
    one attention and its feed-forward function."""
    attentions = {id(c) for c in form.attentions}
    inside = [n for f in fns for n in _walk(f.sig.decl) if id(n) in attentions]
    if len(inside) != 1 or len(form.attentions) != 1:
        raise _Stacked("the block doesn't run one attention, and nothing else does")
    out = _Roles()
    for f in fns:
        lins = _linears(f, out.biases)
        atts = [n for n in _walk(f.sig.decl) if _name(n) == "Call" and id(n) in attentions]
        if len(atts) > 1:
            raise _Stacked(f"`{f.sig.name}` runs {len(atts)} attentions")
        lin_ids = {id(n): name for n, name in lins}
        stop = frozenset(lin_ids)
        if atts:
            _attention_roles(f, atts[0], lins, lin_ids, stop, out.roles)
        else:
            _feed_forward_roles(f, lins, lin_ids, stop, out.roles)
        _norm_roles(f, bool(atts), lins, stop, out)
    if len(set(out.roles.values())) != len(out.roles):
        raise _Stacked("two projections of the block have one role")
    return out


def _attention_roles(f: _Fn, att: Any, lins: list[tuple[Any, str]], lin_ids: dict[int, str],
                     stop: frozenset[int], roles: dict[str, str]) -> None:
    at = f.stmt_of(att)
    qkv = [a.value for a in att.args if a.name is None][:3]
    for role, arg in zip(("q_proj", "k_proj", "v_proj"), qkv):
        found = [lin_ids[id(x)] for x in f.reaches(arg, at, stop) if id(x) in lin_ids]
        if found:
            roles.setdefault(found[0], role)
    for node, name in lins:
        if any(x is att for x in f.reaches(f.arg(node, "input"), f.stmt_of(node), stop)):
            roles.setdefault(name, "o_proj")


def _feed_forward_roles(f: _Fn, lins: list[tuple[Any, str]], lin_ids: dict[int, str],
                        stop: frozenset[int], roles: dict[str, str]) -> None:
    for node, name in lins:
        inner = [lin_ids[id(x)] for x in f.reaches(f.arg(node, "input"), f.stmt_of(node), stop)
                 if id(x) in lin_ids and x is not node]
        if inner:
            roles.setdefault(name, "down_proj")
            for other in inner:
                roles.setdefault(other, "gate_proj" if _activated(f, other, lins)
                                 else "up_proj")


def _norm_roles(f: _Fn, attends: bool, lins: list[tuple[Any, str]], stop: frozenset[int],
                out: _Roles) -> None:
    """A norm feeding a projection is the layer's input norm beside an attention, its
    post-attention norm elsewhere; any other keeps its field's name."""
    for node in _walk(f.sig.decl):
        if _name(node) != "Call" or f.extern(node) not in _NORMS:
            continue
        w = f.arg(node, "weight")
        name = _field_index(f, w) if w is not None else None
        if name is None:
            continue
        b = f.arg(node, "bias")
        bname = _field_index(f, b) if b is not None else None
        feeds = [n2 for n2, _ in lins
                 if any(x is node for x in f.reaches(f.arg(n2, "input"), f.stmt_of(n2), stop))]
        role = ("input_layernorm" if attends and feeds else
                "post_attention_layernorm" if feeds else name)
        if role in (r for r, _, _ in out.norms.values()):
            role = name
        out.norms[name] = (role, node, f)
        if bname is not None:
            out.biases[bname] = name


def _place(lay: Layout, fields: dict[str, Any], fns: list[_Fn],
           used: dict[str, list[tuple[_Fn, Any]]], found: _Roles) -> None:
    """Each field's module path and attribute in a layer, and the layer's linears and
    norms."""
    from shapescript import api

    roles, biases = found.roles, found.biases
    attn_roles = ("q_proj", "k_proj", "v_proj", "o_proj")
    for name, role in roles.items():
        where = "self_attn" if role in attn_roles else "mlp"
        lay.paths[name] = (f"{where}.{role}", "weight")
    linear_weights = {_field_index(f, f.arg(n, "weight")) for f in fns
                      for n in _walk(f.sig.decl)
                      if _name(n) == "Call" and f.extern(n) == _LINEAR}
    for name in used:
        if name in lay.paths or name in biases or name in found.norms:
            continue
        if len(fields[name][0]) == 3 and name in linear_weights:
            lay.paths[name] = (api.python_name(name), "weight")
        else:
            lay.paths[name] = ("", api.python_name(name))
    for name, (role, node, f) in found.norms.items():
        path = role if role != name else api.python_name(name)
        lay.paths[name] = (path, "weight")
        lay.norms[path] = (_const(f, f.arg(node, "eps")), f.extern(node) == _NORMS[0],
                           any(w == name for w in biases.values()))
    for bname, wname in biases.items():
        if bname not in lay.paths:
            lay.paths[bname] = (lay.paths[wname][0], "bias")
    for name, (path, attr) in lay.paths.items():
        shape = fields[name][0]
        if attr == "weight" and path not in lay.norms and len(shape) == 3:
            has_bias = any(b for b, w in biases.items() if w == name)
            lay.linears[path] = (shape[2], shape[1], has_bias)


def _activated(f: _Fn, name: str, lins: list[tuple[Any, str]]) -> bool:
    """Whether an activation takes the ``linear`` of field ``name`` directly."""
    for node in _walk(f.sig.decl):
        if _name(node) != "Call":
            continue
        ext = f.extern(node) or ""
        if ext.rsplit(".", 1)[-1] not in _ACTIVATIONS:
            continue
        for a in node.args:
            if any(a.value is n for n, ln in lins if ln == name):
                return True
    return False


def _dim_word(written: str, size: int, dims: dict[str, int]) -> str | None:
    """The dim of an axis's words whose size is ``size`` (``H`` of ``H*Dh``)."""
    for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", written):
        if dims.get(word) == size:
            return word
    return None


def _plan_splits(lay: Layout, plan: Any, roles: dict[str, str]) -> None:
    form = plan.form
    dims = plan.source.program.main.env.dims
    info = None
    for module in plan.source.program.modules.values():
        info = info or module.env.models.get(plan.source.model_name)
    heads = form.head_shape[0] if form.head_shape else None
    head_dim = form.head_shape[1] if form.head_shape else None
    kv = form.kv_heads or heads
    for name, role in roles.items():
        path = lay.paths[name][0]
        shape = plan.source.fields[name][0]
        written = info.fields[name].written if info is not None else None
        axes = list(written.axes) if written is not None and written.axes else \
            [str(s) for s in shape]
        text = written.text if written is not None else str(list(shape))
        colwise = role in ("q_proj", "k_proj", "v_proj", "gate_proj", "up_proj")
        axis_no = 1 if colwise else 2
        axis = axes[axis_no] if axis_no < len(axes) else str(shape[axis_no])
        width = shape[axis_no]
        if role in ("q_proj", "o_proj", "k_proj", "v_proj"):
            count = kv if role in ("k_proj", "v_proj") else heads
            if count is None or head_dim is None or width != count * head_dim:
                continue
            what = "key and value heads" if role in ("k_proj", "v_proj") else "query heads"
        else:
            count = width
            what = "feed-forward width"
        dim = _dim_word(axis, count, dims) or str(count)
        lay.tp_plan[f"layers.*.{path}"] = "colwise" if colwise else "rowwise"
        lay.splits.append(Split(name, text, axis, dim, count, what))


def _pipeline(lay: Layout, plan: Any, loop: Any, carried: str) -> None:
    """Whether the layers can be staged: the carried value starts as the embedding and
    the output layer takes the norm of the last layer's, so that a stage without the
    first layer takes the states it's given and one without the last gives its own."""
    form = plan.form
    cm = plan.source.program.main
    body = plan.source.sig.decl.body
    start = [s for s in body if _name(s) == "Assign" and len(s.targets) == 1
             and _name(s.targets[0]) == "Name" and s.targets[0].id == carried
             and s.span.line < loop.span.line]
    if not start or start[-1].value is not form.embed_call:
        lay.pp_reason = f"`{carried}` doesn't start as the embedding of the ids"
        return
    h = form.output_input
    res = cm.res.get(h) if h is not None else None
    ext = res.sig.extern if _name(res) == "ExternCall" else None  # type: ignore[union-attr]
    if ext != _NORMS[0]:
        lay.pp_reason = "the output layer doesn't take the norm of the last layer's states"
        return
    fn = _Fn(plan.source.sig, cm)
    x = fn.arg(h, "x")
    w = fn.arg(h, "weight")
    wres = cm.res.get(w) if w is not None else None
    if _name(x) != "Name" or x.id != carried or _name(wres) != "FieldName" or \
            fn.arg(h, "bias") is not None:
        lay.pp_reason = "the output layer doesn't take the norm of the last layer's states"
        return
    lay.final_norm = wres.name  # type: ignore[union-attr]
    lay.final_eps = _const(fn, fn.arg(h, "eps"))


def tp_problems(lay: Layout, degree: int, vocab: int | None) -> list[Split | str]:
    """What ``degree`` doesn't divide: each ``Split``, or ``"vocab"``."""
    out: list[Split | str] = [s for s in lay.splits if s.size % degree]
    if vocab is not None and vocab % degree:
        out.append("vocab")
    return out
