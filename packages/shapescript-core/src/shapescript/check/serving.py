"""The serving rules (E3301–E3308): what lets an engine run a language model's forward
function with its own embedding, attention, KV cache and output layer.

An engine packs the tokens of many requests along one sequence axis, keeps past keys
and values in a cache of its own and computes logits only where it samples. So the
forward function must have the form

    fn forward(m: M, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V]:
        x = embedding(ids, m.E)                 # the engine's embedding (E3303)
        ...                                     # per position, but for attention (E3304)
        return linear(h, m.W)                   # the engine's output layer (E3302)

This pass runs over the checked tree (types and resolutions per node), after the
checker, for one function: ``serving_diagnostics(program, fn)``. E3304 follows the
token axis ``n`` into every function the forward function passes it to: a callee's
generic axis bound to a size in ``n`` is ``n`` there too. Along such an axis only
``scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])`` (or a sliding
window, ``causal[n n](window=W)``, whose W an engine must know: E3308) may work across
positions; reductions, softmax, contractions, patterns that split or merge it,
slices, constructors such as ``arange[n]`` and the size ``n`` used as a value do too,
so each is reported.

``serving_form(program, fn)`` gives what an exporter needs to cut the model at the
engine's parts: the parameters, the embedding and output calls and fields, and every
attention call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from shapescript.builtin_registry import BUILTINS_BY_NAME, EINOPS_PATTERN_NAMES
from shapescript.check.env import AxisParam, FnSig
from shapescript.check.payloads import Reduction
from shapescript.check.resolutions import (
    AxesIndex, BuiltinCall, ExprArg, ExternCall, FnCall, GenericName, IntIndex, LocalName,
    MaskIndex, SliceIndex,
)
from shapescript.check.result import CheckedModule, Program
from shapescript.check.serving_attention import (
    helper_mask, kv_grouping, mask_window, padding_refusal,
)
from shapescript.check.serving_help import HELP, MIX_HELP
from shapescript.check.serving_walk import body_nodes, call_args, field_of, returns_of, walk
from shapescript.check.sizes import Size
from shapescript.check.types import INT_DTYPES, ModelType, TensorType
from shapescript.diagnostics import Diagnostic
from shapescript.syntax import ast
from shapescript import error_codes as ec

__all__ = ["ServingForm", "serving_diagnostics", "serving_form"]

SDPA = "torch.nn.functional.scaled_dot_product_attention"
EMBEDDING = "torch.nn.functional.embedding"
LINEAR = "torch.nn.functional.linear"

@dataclass
class ServingForm:
    """The forward function of a model, cut where an engine runs its own parts."""

    sig: FnSig
    model: ModelType | None = None
    ids: str | None = None               # the token ids' parameter
    pos: str | None = None               # the positions' parameter, if any
    vocab: Size | None = None            # V of Index[V]
    positions: int | None = None         # P of the positions' Index[P]
    embed_call: ast.Call | None = None
    embed_field: str | None = None
    output_call: ast.Call | None = None
    output_field: str | None = None
    output_input: ast.Expr | None = None  # h of linear(h, m.W)
    attentions: list[ast.Call] = field(default_factory=list)
    head_shape: tuple[int, int] | None = None  # (H, Dh)
    kv_heads: int | None = None          # Hkv: the key and value heads an engine caches
    # By id of an attention call: its window (None: plain causal); the repeats of its keys
    # and values to H heads, which an engine does itself.
    windows: dict[int, int | None] = field(default_factory=dict)
    grouped: dict[int, tuple[ast.Call, ...]] = field(default_factory=dict)
    # Why padded input can't be masked (None: hiding padded keys in key_attentions can).
    padding_refusal: str | None = None
    key_attentions: list[ast.Call] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def servable(self) -> bool:
        return not self.diagnostics

    @property
    def tied(self) -> bool:
        return self.embed_field is not None and self.embed_field == self.output_field


# -- E3304: following n ---------------------------------------------------------------

class _Follow:
    """The functions reached with the token axis, and where positions are mixed."""

    def __init__(self, program: Program, as_errors: bool) -> None:
        self.program = program
        self.as_errors = as_errors
        self.out: list[Diagnostic] = []
        self.attentions: list[tuple[FnSig, ast.Call, frozenset[str]]] = []
        self.done: set[tuple[int, frozenset[str]]] = set()
        self.fields_read: list[tuple[FnSig, ast.Attr, str]] = []
        self.reached: list[FnSig] = []
        self.windows: dict[int, int | None] = {}
        self.allow_windows = True
        # Why positions mix other than in attention's masks (padding can't be masked).
        self.mixing: list[str] = []

    def cm_of(self, sig: FnSig) -> CheckedModule:
        return self.program.modules[sig.file]

    def visit(self, sig: FnSig, nvars: frozenset[str]) -> None:
        key = (id(sig), nvars)
        if key in self.done or sig.is_extern or not isinstance(sig.decl, ast.FnDecl):
            return
        self.done.add(key)
        if sig not in self.reached:
            self.reached.append(sig)
        cm = self.cm_of(sig)

        def along(s: Size) -> bool:
            return bool(s.free_vars() & nvars)

        def tensor(e: Any) -> TensorType | None:
            t = cm.types.get(e)
            return t if isinstance(t, TensorType) else None

        def bad(node: Any, message: str, label: str, kind: str = "") -> None:
            if kind not in ("mask", "ctor"):  # a mask mixes only in attention
                self.mixing.append(f"{message}, at {node.span.file}:{node.span.line}")
            self.report(ec.E3304, message, node.span, label, MIX_HELP.get(kind))

        nodes = list(body_nodes(sig, cm))
        # The mask written in an attention call is the engine's, not a computation.
        masks = set()
        helpers: set[int] = set()
        for node in nodes:
            res = cm.res.get(node) if isinstance(node, ast.Call) else None
            if isinstance(res, (FnCall, ExternCall)) and res.sig.extern == SDPA:
                mask = call_args(node)[1].get("attn_mask")
                if mask is not None:
                    masks |= {id(x) for x in walk(mask)}
                if mask is not None and helper_mask(cm, mask) is not None:
                    # `window(n, W)`: its `n` and its body are the engine's mask too.
                    helpers |= {id(x) for x in walk(mask)}
        for node in nodes:
            if id(node) in helpers:
                continue
            if isinstance(node, ast.Attr):
                t = cm.types.get(node.value)
                if isinstance(t, ModelType):
                    self.fields_read.append((sig, node, node.attr))
            if isinstance(node, ast.Name):
                res = cm.res.get(node)
                if isinstance(res, GenericName) and res.name in nvars:
                    bad(node, "the number of positions used as a value",
                        f"`{node.id}` counts the tokens of every request packed together", "count")
            elif isinstance(node, ast.Constructor) and node.name in ("arange", "causal", "eye", "tril", "triu"):
                t = tensor(node)
                if t is not None and any(along(a.size) for a in t.axes if not a.variadic):
                    if id(node) not in masks:
                        bad(node, "positions computed from the token axis",
                            f"`{node.name}[…]` along `n` counts across requests",
                            "ctor" if node.name == "causal" else "count")
            elif isinstance(node, ast.BinOp) and node.op == "@":
                lt = tensor(node.left)
                if lt is not None and lt.axes and not lt.axes[-1].variadic and along(lt.axes[-1].size):
                    bad(node, "a contraction across positions",
                        "`@` sums over the token axis")
            elif isinstance(node, ast.Index):
                t = tensor(node.value)
                res = cm.res.get(node)
                if t is not None and isinstance(res, (IntIndex, SliceIndex, MaskIndex, AxesIndex)):
                    k = len(node.indices) if isinstance(res, IntIndex) else 1
                    picked = ([t.axes[p.axis] for p in res.picks] if isinstance(res, AxesIndex)
                              else t.axes[:k])
                    if any(along(a.size) for a in picked if not a.variadic):
                        bad(node, "an index along the token axis", "picks positions")
            elif isinstance(node, ast.Call):
                self.call(sig, cm, node, nvars, along, tensor, bad)

    def call(self, sig: FnSig, cm: CheckedModule, e: ast.Call, nvars: frozenset[str],
             along: Any, tensor: Any, bad: Any) -> None:
        res = cm.res.get(e)
        if not isinstance(res, (BuiltinCall, FnCall, ExternCall)):
            return
        pos, kw = call_args(e)
        if isinstance(res, BuiltinCall):
            name = res.name
            t = tensor(pos[0]) if pos else None
            entry = BUILTINS_BY_NAME.get(name)
            if entry is not None and entry.across and t is not None:
                dims = res.data.dims if isinstance(res.data, Reduction) else None
                axes = [a for a in t.axes if not a.variadic]
                hit = any(along(a.size) for a in axes) if dims is None else any(
                    along(t.axes[d].size) for d in dims if -len(t.axes) <= d < len(t.axes))
                if "over" in entry.required and "over" in kw:
                    hit = self.over_hits(t, kw["over"], along)
                if hit:
                    bad(e, f"`{name}` across positions", "works across the token axis")
            elif name in EINOPS_PATTERN_NAMES and e.pattern is not None:
                self.pattern(e, pos, along, tensor, bad)
            elif name == "map":
                pass  # a count in `n` is reported where `n` is used as a value
            return
        if isinstance(res, FnCall):
            callee = res.sig
            self.visit(callee, self.bind(callee, res, cm, along))
            return
        if not isinstance(res, ExternCall):
            return
        ext = res.sig
        target = ext.extern or ""
        if target == SDPA:
            self.attentions.append((sig, e, nvars))
            mask = kw.get("attn_mask")
            q = tensor(pos[0]) if pos else None
            if q is None or len(q.axes) != 4 or not along(q.axes[2].size):
                return  # E3305 says what is wrong with its shapes
            helper = helper_mask(cm, mask) if mask is not None else None
            window_arg = None
            if helper is not None:
                mask, window_arg = helper  # `window(n, W)`: a helper's causal mask
            if not (isinstance(mask, ast.Constructor) and mask.name == "causal"):
                bad(e, "attention with a mask of its own" if mask is not None
                    else "attention without a causal mask written in the call",
                    "the engine runs causal attention over each request", "mask")
                return
            window, why = mask_window(cm, mask, window_arg)
            held = why is None and window is not None and not self.allow_windows
            if held:
                why = "a sliding window, which this target can't run yet"
            if why is not None:
                self.report(ec.E3308, f"attention with {why}",
                            window_arg.span if window_arg is not None else mask.span,
                            "the engine sets each layer's window before it runs",
                            MIX_HELP["window"] if held else None)
            self.windows[id(e)] = window
            return
        # Another extern: an axis parameter naming a token axis, or a generic axis bound
        # to one that the result doesn't keep (a contraction, a convolution), mixes.
        bound = self.extern_binding(ext, res, cm)
        ret = ext.ret
        kept: set[str] = set()
        if isinstance(ret, TensorType):
            kept = {a.size.var_name for a in ret.axes if not a.variadic and a.size.var_name}
        for var, size in bound.items():
            if var.startswith("axis:"):
                if along(size):
                    bad(e, f"`{ext.name}` over the token axis", "works across positions")
                    return
            elif along(size) and var not in kept:
                bad(e, f"`{ext.name}` across positions", f"`{var}` is the token axis here")
                return

    def over_hits(self, t: TensorType, over: ast.Expr, along: Any) -> bool:
        names = [over] if not isinstance(over, ast.TupleExpr) else list(over.items)
        for n in names:
            if isinstance(n, ast.Name):
                for a in t.axes:
                    if not a.variadic and a.label.var_name == n.id and along(a.size):
                        return True
        return False

    def pattern(self, e: ast.Call, pos: list[ast.Expr], along: Any, tensor: Any, bad: Any) -> None:
        pat = e.pattern
        assert isinstance(pat, ast.Pattern)  # the calls of the pattern built-ins only
        names_along: set[str] = set()
        for k, terms in enumerate(pat.inputs):
            t = tensor(pos[k]) if k < len(pos) else None
            if t is None or any(isinstance(x, ast.PatEllipsis) for x in terms):
                continue
            for term, ax in zip(terms, t.axes):
                if along(ax.size):
                    if isinstance(term, ast.PatGroup):
                        bad(e, "a pattern that splits the token axis", "mixes positions")
                        return
                    if isinstance(term, ast.PatName):
                        names_along.add(term.name)
        out_top = {x.name for x in pat.output if isinstance(x, ast.PatName)}
        grouped = {y.name for x in pat.output if isinstance(x, ast.PatGroup)
                   for y in x.items if isinstance(y, ast.PatName)}
        for nm in names_along:
            if nm in grouped or nm not in out_top:
                bad(e, "a pattern that merges or reduces the token axis", "mixes positions")
                return

    def bind(self, callee: FnSig, res: FnCall, cm: CheckedModule, along: Any) -> frozenset[str]:
        """The callee's generic axes bound to the token axis at this call."""
        out: set[str] = set()
        for p, av in zip(callee.params, res.args):
            if not isinstance(p.type, TensorType) or not isinstance(av, ExprArg):
                continue
            at = cm.types.get(av.node)
            if not isinstance(at, TensorType):
                continue
            for pa, aa in _aligned(p.type, at):
                v = pa.size.var_name
                if v is not None and v in callee.generics and along(aa.size):
                    out.add(v)
        return frozenset(out)

    def extern_binding(self, ext: FnSig, res: ExternCall, cm: CheckedModule) -> dict[str, Size]:
        out: dict[str, Size] = {}
        given: list[tuple[Any, Any]] = list(zip(ext.params, res.args))
        by_name = {p.name: p for p in ext.params}
        given += [(by_name[k], av) for k, av in res.kwargs if k in by_name]
        first: TensorType | None = None
        for p, av in given:
            if not isinstance(av, ExprArg):
                continue
            at = cm.types.get(av.node)
            if isinstance(p.type, TensorType) and isinstance(at, TensorType):
                first = first or at
                for pa, aa in _aligned(p.type, at):
                    v = pa.size.var_name
                    if v is not None and v in ext.generics:
                        out.setdefault(v, aa.size)
            elif isinstance(p.type, AxisParam) and first is not None:
                node = av.node
                if isinstance(node, ast.Name):
                    for a in first.axes:
                        if not a.variadic and a.label.var_name == node.id:
                            out["axis:" + p.name] = a.size
        return out

    def report(self, code: str, message: str, span: Any, label: str,
               help: str | None = None) -> None:
        self.out.append(_diag(code, message, span, label, self.as_errors, help))


def _aligned(param: TensorType, arg: TensorType) -> list[tuple[Any, Any]]:
    """Pairs of (parameter axis, argument axis), ``...`` matching the rest."""
    pa = list(param.axes)
    aa = [a for a in arg.axes]
    if any(a.variadic for a in aa):
        return []
    vi = next((i for i, a in enumerate(pa) if a.variadic), None)
    if vi is None:
        return list(zip(pa, aa)) if len(pa) == len(aa) else []
    before, after = pa[:vi], pa[vi + 1:]
    if len(before) + len(after) > len(aa):
        return []
    pairs = list(zip(before, aa[:len(before)]))
    if after:
        pairs += list(zip(after, aa[len(aa) - len(after):]))
    return pairs


def _diag(code: str, message: str, span: Any, label: str, as_errors: bool,
          help: str | None = None) -> Diagnostic:
    if as_errors:
        return Diagnostic.error(code, message, span, label, help=help or HELP.get(code))
    return Diagnostic.warning(code, message, span, label, help=help or HELP.get(code))


# -- the form -------------------------------------------------------------------------

def serving_form(program: Program, fn: str = "forward", *, as_errors: bool = True,
                 windows: bool = True) -> ServingForm:
    """The serving form of ``fn`` of ``program.main``, with the diagnostics of every
    serving rule it breaks (errors, or warnings with ``as_errors=False``). ``program``
    must have checked without errors. ``windows=False``: for a target that can't run a
    sliding window, one is E3308.

    The rules run in the engine's order over one form, each filling what the next reads."""
    cm = program.main
    assert cm is not None, "serving_form needs a program that checked"
    sig = cm.env.fns.get(fn)
    if sig is None or sig.is_extern or not isinstance(sig.decl, ast.FnDecl):
        raise ValueError(f"no function `{fn}` in {cm.env.path}")
    form = ServingForm(sig)
    out = form.diagnostics

    def report(code: str, message: str, span: Any, label: str) -> None:
        out.append(_diag(code, message, span, label, as_errors))

    n = _parameters(form, fn, report)
    if n is None:
        return form
    mname = sig.params[0].name
    _output_layer(form, cm, mname, report)
    _embedding(form, cm, mname, report)
    # E3304 through every function reached with n; E3305 on the attentions found.
    follow = _Follow(program, as_errors)
    follow.allow_windows = windows
    follow.visit(sig, frozenset({n}))
    out.extend(follow.out)
    for fsig, node, fname in follow.fields_read:
        if fname in (form.embed_field, form.output_field):
            inside = any(node is x for c in (form.embed_call, form.output_call) if c is not None
                         for x in walk(c))
            if not inside:
                report(ec.E3303, f"`{fname}` is read outside the engine's embedding and output layer",
                       node.span, "the engine keeps this table to itself")
    _attentions(form, follow, report)
    out.sort(key=lambda d: d.sort_key())
    return form


def _parameters(form: ServingForm, fn: str, report: Any) -> str | None:
    """E3306, the model first; E3301, the ids, then optionally the positions, other
    parameters defaulted. The token axis ``n`` (None: the form stops here)."""
    sig = form.sig
    decl, params = sig.decl, sig.params
    if not params or not isinstance(params[0].type, ModelType):
        where = params[0].span if params else decl.span
        report(ec.E3306, "the forward function doesn't take the model first", where,
               f"`{fn}` needs the model's weights as its first parameter")
        return None
    form.model = params[0].type
    ids_t = params[1].type if len(params) > 1 else None
    b = n = None
    if (isinstance(ids_t, TensorType) and len(ids_t.axes) == 2 and not ids_t.has_variadic
            and ids_t.domain.kind == "Index" and ids_t.domain.index is not None
            and ids_t.domain.index.is_const):
        b, n = ids_t.axes[0].size.var_name, ids_t.axes[1].size.var_name
    if b is None or n is None or b == n:
        span = params[1].span if len(params) > 1 else decl.span
        report(ec.E3301, "the forward function doesn't take token ids `[b n] Index[V]`", span,
               "the second parameter must be the token ids, V a dim")
        return None
    assert isinstance(ids_t, TensorType)
    form.ids = params[1].name
    form.vocab = ids_t.domain.index
    rest = params[2:]
    if rest and isinstance(rest[0].type, TensorType) and rest[0].default is None:
        pt = rest[0].type
        if (len(pt.axes) == 2 and not pt.has_variadic and pt.axes[0].size.var_name == b
                and pt.axes[1].size.var_name == n and pt.dtype in INT_DTYPES):
            form.pos = rest[0].name
            if pt.domain.kind == "Index" and pt.domain.index is not None and pt.domain.index.is_const:
                form.positions = pt.domain.index.const_value
            rest = rest[1:]
    for p in rest:
        if p.default is None:
            report(ec.E3301, "a parameter the engine can't give", p.span,
                   f"`{p.name}` is neither the ids nor their positions `[b n]` of an integer "
                   "dtype, and has no default")
    return n


def _output_layer(form: ServingForm, cm: CheckedModule, mname: str, report: Any) -> None:
    """E3302: one return, of the output layer ``linear(h, m.W)``."""
    decl = form.sig.decl
    assert isinstance(decl, ast.FnDecl)
    body = decl.body
    returns = [s for s in returns_of(body, cm.res)] if isinstance(body, tuple) else []
    value: ast.Expr | None
    if isinstance(body, tuple):
        if len(returns) != 1:
            report(ec.E3302, "the forward function doesn't end with one return of the output layer",
                   decl.span, f"{len(returns)} returns")
            value = None
        else:
            value = returns[0].value
    else:
        value = body
    if value is None:
        return
    out_field = None
    res = cm.res.get(value)
    if (isinstance(value, ast.Call) and isinstance(res, ExternCall)
            and res.sig.extern == LINEAR):
        pos, kw = call_args(value)
        w = pos[1] if len(pos) > 1 else kw.get("weight")
        bias = pos[2] if len(pos) > 2 else kw.get("bias")
        out_field = field_of(cm, w, {mname}) if w is not None else None
        wt = cm.types.get(w) if w is not None else None
        if bias is not None and not isinstance(bias, ast.NoneLit):
            out_field = None
        elif (out_field is not None and isinstance(wt, TensorType) and len(wt.axes) == 2
              and wt.axes[0].size == form.vocab):
            form.output_call, form.output_field, form.output_input = value, out_field, pos[0]
        else:
            out_field = None
    if out_field is None:
        report(ec.E3302, "the forward function doesn't end with the output layer", value.span,
               "the engine computes `linear(h, m.W)` itself: `m.W` a param `[V D]`, no bias")


def _embedding(form: ServingForm, cm: CheckedModule, mname: str, report: Any) -> None:
    """E3303: the ids once, in ``embedding(ids, m.E)``."""
    sig, decl = form.sig, form.sig.decl
    uses = [x for x in body_nodes(sig, cm) if isinstance(x, ast.Name) and x.id == form.ids
            and isinstance(cm.res.get(x), LocalName)]
    for node in body_nodes(sig, cm):
        if not isinstance(node, ast.Call):
            continue
        res = cm.res.get(node)
        if isinstance(res, ExternCall) and res.sig.extern == EMBEDDING:
            pos, kw = call_args(node)
            if pos and isinstance(pos[0], ast.Name) and pos[0].id == form.ids and len(pos) > 1:
                fld = field_of(cm, pos[1], {mname})
                if fld is not None and form.embed_call is None:
                    form.embed_call, form.embed_field = node, fld
    if form.embed_call is None:
        span = uses[0].span if uses else decl.span
        report(ec.E3303, "the token ids aren't embedded by `embedding(ids, m.E)`", span,
               "the engine looks the ids up in the embedding table itself")
    elif len(uses) != 1:
        other = next(u for u in uses if u is not call_args(form.embed_call)[0][0])
        report(ec.E3303, "the token ids are used again", other.span,
               "the engine gives the model the embedded ids only")


def _attentions(form: ServingForm, follow: _Follow, report: Any) -> None:
    """E3305, the attentions an engine can run, of one shape; E3308, one window size;
    the grouping of keys and values (E3307) and padding of each."""
    decl = form.sig.decl
    form.attentions = [c for _, c, _ in follow.attentions]
    shapes: list[tuple[Any, ...]] = []
    for fsig, call, nvars in follow.attentions:
        fcm = follow.cm_of(fsig)
        pos, _ = call_args(call)
        ts = [fcm.types.get(x) for x in pos[:3]]
        qkv = [t for t in ts if isinstance(t, TensorType) and len(t.axes) == 4]
        ok = len(ts) == 3 and len(qkv) == 3
        if ok:
            q, k, v = qkv
            ok = (q.sizes() == k.sizes() == v.sizes() and q.axes[1].size.is_const
                  and q.axes[3].size.is_const and bool(q.axes[2].size.free_vars() & nvars))
        if not ok:
            report(ec.E3305, "attention the engine can't run", call.span,
                   "queries, keys and values must be `[b H n Dh]` of one shape, H and Dh dims")
            continue
        hd = (int(q.axes[1].size.const_value or 0), int(q.axes[3].size.const_value or 0))
        if shapes and hd != shapes[0]:
            report(ec.E3305, "attentions of different shapes", call.span,
                   f"{hd[0]} heads of {hd[1]} here, {shapes[0][0]} of {shapes[0][1]} before")
        shapes.append(hd)
        _group(form, fcm, fsig, call, pos, hd[0], report)
    if shapes:
        form.head_shape = shapes[0]
    form.windows = follow.windows
    sizes = sorted({w for w in follow.windows.values() if w is not None})
    if len(sizes) > 1:
        report(ec.E3308, "sliding windows of different sizes", decl.span,
               f"windows of {', '.join(map(str, sizes))} positions: an engine has one size")
    _padding(form, follow)
    if not follow.attentions:
        report(ec.E3305, "the forward function runs no attention", decl.span,
               "an engine serves a model with at least one attention")


def _group(form: ServingForm, cm: CheckedModule, sig: FnSig, call: ast.Call,
           pos: list[ast.Expr], heads: int, report: Any) -> None:
    """E3307, and the key heads an engine caches: the repeat of keys and values to the
    query heads, left to the engine where it is a plain grouping."""
    body = sig.decl.body if isinstance(sig.decl, ast.FnDecl) else ()
    kv_args: set[int] = set()
    for node in body_nodes(sig, cm):
        res = cm.res.get(node) if isinstance(node, ast.Call) else None
        if isinstance(res, ExternCall) and res.sig.extern == SDPA:
            kv_args |= {id(x) for x in call_args(node)[0][1:3]}
    g = kv_grouping(cm, body if isinstance(body, tuple) else (), call, pos[1], pos[2], kv_args)
    if g.refusal is not None:
        report(ec.E3307, "keys and values repeated to the query heads in a way the engine "
               "can't do itself", call.span, g.refusal)
        return
    kv = g.kv_heads if g.kv_heads is not None else heads
    if form.kv_heads is not None and kv != form.kv_heads:
        report(ec.E3307, "attentions with different numbers of key heads", call.span,
               f"{kv} key heads here, {form.kv_heads} before")
        return
    form.kv_heads = kv
    if g.repeats:
        form.grouped[id(call)] = g.repeats


def _padding(form: ServingForm, follow: _Follow) -> None:
    form.padding_refusal, form.key_attentions = padding_refusal(follow.mixing, [
        (follow.cm_of(f).types.get(call_args(c)[0][1]), c, nv) for f, c, nv in follow.attentions])


def serving_diagnostics(program: Program, fn: str = "forward", *,
                        as_errors: bool = True, windows: bool = True) -> list[Diagnostic]:
    """The serving rules ``fn`` breaks (E3301–E3308): errors, as ``check --vllm`` and
    ``--gguf`` report them, or warnings with ``as_errors=False`` (what ``--hf`` notes).

    >>> serving_diagnostics(check_path("llama.ss"), "forward")      # doctest: +SKIP
    []
    """
    return serving_form(program, fn, as_errors=as_errors, windows=windows).diagnostics
