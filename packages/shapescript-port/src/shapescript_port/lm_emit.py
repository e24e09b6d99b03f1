"""An ``LmPlan`` written as a ``.ss`` program a person would have written: the sizes as
dims with doc comments, a model with named, stacked parameters, one function per part
(rotary, attention, feed-forward, block) and ``forward(m, ids, pos)`` in the serving
form, whose loop over the blocks replaces the source's list of layers."""

from __future__ import annotations

from shapescript_port.lm_plan import LmPlan
from shapescript_port.probes import ACTIVATIONS


def _norm(plan: LmPlan, x: str, name: str, index: str) -> str:
    if plan.norm.kind == "layer":
        return (f"layer_norm({x}, over=D, weight=m.{name}_w{index}, bias=m.{name}_b{index}, "
                "eps=eps)")
    weight = f"m.{name}{index}"
    if plan.norm.kind == "rms1p":
        weight = f"1.0 + {weight}"
    return f"rms_norm({x}, over=D, weight={weight}, eps=eps)"


def _linear(x: str, w: str, bias: bool, b: str) -> str:
    return f"linear({x}, m.{w}[l], m.{b}[l])" if bias else f"linear({x}, m.{w}[l])"


def _header(plan: LmPlan, source: str) -> list[str]:
    out = [f"## {plan.model_name}, ported by `shapescript port` from transformers' "
           f"`{plan.source_class}`",
           f"## ({source}). Its weights load by the fields' names; `forward` gives the source's",
           "## logits, checked on fresh inputs before the port was written.", ""]
    for d in plan.dims:
        out += [f"## {d.doc}", f"dim {d.name} = {d.formula}"]
    out += ["", "## The norms' epsilon.", f"const eps = {plan.norm.eps!r}"]
    if plan.rotary is not None:
        out += ["## The rotary embedding's base (`rope_theta`).", f"const rope_base = {plan.rotary[0]!r}"]
    if plan.scale is not None:
        out += ["## The attention's scale.", f"const attn_scale = {plan.scale!r}"]
    out += ["", f"## The weights of every block are stacked along a leading axis L (the source's "
            f"`{plan.layers}`).", f"model {plan.model_name}:"]
    for f in plan.fields:
        out += [f"    ## {f.doc} (`{f.key}`{', transposed' if f.transpose else ''})",
                f"    param {f.name}: [{f.axes}]"]
    return out


def _rotary(plan: LmPlan) -> list[str]:
    if plan.rotary is None:
        return []
    full = plan.rotary[1] == plan.dim("Dh")
    half, width = ("Dr", "Dh") if full else ("Dq", "Drot")
    out = ["",
           "## Turns the two halves of each head's rotated features as pairs (j, j + half) by",
           "## pos * rope_base^(-2j/width), as the source's `rotate_half` does.",
           "fn rotary(x: [b h n Dh], pos: [b n] Index[P]) -> [b h n Dh]:",
           f"    freq = 1.0 / rope_base ** ((arange[{half}] to f32) * 2.0 / {width})",
           "    angle = (pos to f32) * freq",
           "    c = cos(angle)",
           "    s = sin(angle)"]
    if full:
        out += ["    halves = rearrange(x, b h n (two Dr) -> two b h n Dr, two=2)",
                "    turned = stack((halves[0] * c - halves[1] * s, halves[0] * s + halves[1] * c))",
                "    return rearrange(turned, two b h n Dr -> b h n (two Dr))"]
    else:
        out += ["    turned, rest = split(x, over=Dh, sizes=(Drot, Dh - Drot))",
                "    halves = rearrange(turned, b h n (two Dq) -> two b h n Dq, two=2)",
                "    out = stack((halves[0] * c - halves[1] * s, halves[0] * s + halves[1] * c))",
                "    rotated: [b h n Drot] = rearrange(out, two b h n Dq -> b h n (two Dq))",
                "    return concat((rotated, rest), over=Drot)"]
    return out


def _attention(plan: LmPlan) -> list[str]:
    M = plan.model_name
    rot = plan.rotary is not None
    pos_param = ", pos: [b n] Index[P]" if rot else ""
    kv = "Hkv" if plan.gqa else "H"
    out = ["", "## Causal self-attention of block l" + (
        "; each key and value head serves R query heads." if plan.gqa else "."),
           f"fn attention(m: {M}, x: [b n D]{pos_param}, l: int) -> [b n D]:",
           f"    h = {_norm(plan, 'x', 'attn_norm', '[l]')}"]
    turn = " |> rotary(pos)" if rot else ""
    if plan.attention == "separate":
        out += [f"    q = {_linear('h', 'wq', plan.qkv_bias, 'bq')} |> rearrange(b n (H Dh) -> b H n Dh){turn}",
                f"    k = {_linear('h', 'wk', plan.qkv_bias, 'bk')} |> rearrange(b n ({kv} Dh) -> b {kv} n Dh){turn}",
                f"    v = {_linear('h', 'wv', plan.qkv_bias, 'bv')} |> rearrange(b n ({kv} Dh) -> b {kv} n Dh)"]
    elif plan.attention == "split":
        sizes = "H * Dh, Hkv * Dh, Hkv * Dh" if plan.gqa else "H * Dh, H * Dh, H * Dh"
        out += [f"    qkv: [b n Q] = {_linear('h', 'w_qkv', plan.qkv_bias, 'b_qkv')}",
                f"    q, k, v = split(qkv, over=Q, sizes=({sizes}))",
                f"    q = rearrange(q, b n (H Dh) -> b H n Dh){turn}",
                f"    k = rearrange(k, b n ({kv} Dh) -> b {kv} n Dh){turn}",
                f"    v = rearrange(v, b n ({kv} Dh) -> b {kv} n Dh)"]
    else:
        pattern = "three H Dh" if plan.attention == "kind_major" else "H three Dh"
        out += [f"    qkv = {_linear('h', 'w_qkv', plan.qkv_bias, 'b_qkv')} "
                f"|> rearrange(b n ({pattern}) -> three b H n Dh, three=3)"]
        if rot:
            out += ["    q = rotary(qkv[0], pos)", "    k = rotary(qkv[1], pos)", "    v = qkv[2]"]
        else:
            out += ["    q = qkv[0]", "    k = qkv[1]", "    v = qkv[2]"]
    if plan.gqa:
        out += ["    k = repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)",
                "    v = repeat(v, b Hkv n Dh -> b (Hkv R) n Dh)"]
    mask = "causal[n n](window=W)" if plan.window is not None else "causal[n n]"
    scale = ", scale=attn_scale" if plan.scale is not None else ""
    out += [f"    y = scaled_dot_product_attention(q, k, v, attn_mask={mask}{scale})",
            f"    return {_linear('rearrange(y, b H n Dh -> b n (H Dh))', 'wo', plan.o_bias, 'bo')}"]
    return out


def _feed_forward(plan: LmPlan) -> list[str]:
    act = ACTIVATIONS[plan.activation]
    out = ["", "## The feed-forward layer of block l.",
           f"fn feed_forward(m: {plan.model_name}, x: [b n D], l: int) -> [b n D]:",
           f"    h = {_norm(plan, 'x', 'mlp_norm', '[l]')}"]
    bias = plan.mlp_bias
    if plan.mlp == "gated":
        gate = act.format(_linear("h", "w_gate", bias, "b_gate"))
        product = gate + " * " + _linear("h", "w_up", bias, "b_up")
        out += [f"    return {_linear(product, 'w_down', bias, 'b_down')}"]
    elif plan.mlp == "fused_gated":
        out += [f"    gate_up: [b n G] = {_linear('h', 'w_gate_up', bias, 'b_gate_up')}",
                "    gate, up = split(gate_up, over=G, sizes=(F, F))",
                f"    return {_linear(act.format('gate') + ' * up', 'w_down', bias, 'b_down')}"]
    else:
        inner = act.format(_linear("h", "w_up", bias, "b_up"))
        out += [f"    return {_linear(inner, 'w_down', bias, 'b_down')}"]
    return out


def write_lm(plan: LmPlan, source: str) -> str:
    """The ``.ss`` text of ``plan``; ``source`` says where the model came from."""
    M = plan.model_name
    rot = plan.rotary is not None
    pos_arg = ", pos" if rot else ""
    pos_param = ", pos: [b n] Index[P]" if rot else ""
    out = _header(plan, source) + _rotary(plan) + _attention(plan) + _feed_forward(plan)
    if plan.parallel:
        body = [f"    return x + attention(m, x{pos_arg}, l) + feed_forward(m, x, l)"]
        doc = "## Block l: attention and the feed-forward layer side by side, both added to its input."
    else:
        body = [f"    x = x + attention(m, x{pos_arg}, l)", "    return x + feed_forward(m, x, l)"]
        doc = "## Block l: attention, then the feed-forward layer, each added to its input."
    out += ["", doc, f"fn block(m: {M}, x: [b n D]{pos_param}, l: int) -> [b n D]:"] + body
    embed = "embedding(ids, m.embed)"
    if plan.pos_embed:
        embed += " + embedding(pos, m.pos_embed)"
    if plan.embed_scale:
        embed = f"({embed}) * (D ** 0.5)" if plan.pos_embed else f"{embed} * (D ** 0.5)"
    head = "m.embed" if plan.tied else "m.output"
    final = _norm(plan, "x", "norm", "")
    out += ["", "## The token embedding, as the first block sees it.",
            f"fn embed(m: {M}, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n D]:",
            f"    return {embed}",
            "", "## The scores of the next token after each position.",
            f"fn forward(m: {M}, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:",
            f"    x = {embed}",
            "    for l in 0..L:",
            f"        x = block(m, x{pos_arg}, l)",
            f"    return linear({final}, {head})", ""]
    return "\n".join(out)
