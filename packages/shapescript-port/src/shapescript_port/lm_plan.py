"""What a transformers causal language model computes, read off its module tree and
configuration and confirmed by running its parts (``probes``): the embedding, the
repeated blocks (rolled into one loop over stacked parameters), each block's norms,
attention and feed-forward layer, the rotary table, the final norm and the output layer.

The result, an ``LmPlan``, says everything the writer (``lm_emit``) and the weight
mapping (``lm_weights``) need; nothing there looks at the source again."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from shapescript_port.errors import UNRECOGNISED, PortError, where
from shapescript_port.probes import Norm, probe_activation, probe_norm

# Projections' module names: which fused layout each stands for.
_KIND_MAJOR = ("c_attn",)          # rows [q; k; v] (GPT-2)
_HEAD_MAJOR = ("query_key_value",)  # rows per head: q, k, v of head 0, of head 1, … (GPT-NeoX)
_SPLIT = ("qkv_proj", "Wqkv")       # rows [q; k; v] with H and Hkv heads (Phi-3)


@dataclass(frozen=True)
class Field:
    """A parameter of the written model: its name, its type's axes in the file's dims
    (``L H*Dh D``), a doc line, the source key (``{l}`` stands for the block, for a
    field stacked over blocks) and whether it is the source's transpose (GPT-2's
    ``Conv1D`` keeps ``[in out]``)."""

    name: str
    axes: str
    doc: str
    key: str
    transpose: bool = False

    @property
    def stacked(self) -> bool:
        return "{l}" in self.key


@dataclass(frozen=True)
class Dim:
    """A size of the written program: its name, value or formula, the config key it
    comes from and its doc line."""

    name: str
    value: int
    formula: str
    doc: str


@dataclass(frozen=True)
class LmPlan:
    """A causal language model as the port writes it (see the module's docstring)."""

    model_name: str
    source_class: str
    model_type: str
    dims: tuple[Dim, ...]
    fields: tuple[Field, ...]
    norm: Norm
    attention: str            # "separate", "kind_major", "head_major", "split"
    qkv_bias: bool
    o_bias: bool
    mlp: str                  # "gated", "fused_gated", "plain"
    mlp_bias: bool
    activation: str           # a key of probes.ACTIVATIONS
    rotary: tuple[float, int] | None   # (base, rotated features per head)
    gqa: bool
    window: int | None
    scale: float | None       # the attention's scale where it isn't 1/sqrt(Dh)
    parallel: bool
    embed_scale: bool         # the embedding multiplied by sqrt(D)
    pos_embed: bool
    tied: bool
    layers: str               # the blocks' module path (``model.layers``)
    attn_path: str            # within a block
    mlp_path: str
    config_doc: dict[str, str]

    def dim(self, name: str) -> int:
        return next(d.value for d in self.dims if d.name == name)


def _names(model: Any) -> dict[int, str]:
    return {id(m): n for n, m in model.named_modules()}


def _is_linear(module: Any) -> bool:
    import torch

    return isinstance(module, torch.nn.Linear) or type(module).__name__ == "Conv1D"


def _linear_shape(module: Any) -> tuple[int, int, bool]:
    """(out, in, transposed) of a Linear or a GPT-2 Conv1D (weight ``[in out]``)."""
    w = module.weight
    if type(module).__name__ == "Conv1D":
        return int(w.shape[1]), int(w.shape[0]), True
    return int(w.shape[0]), int(w.shape[1]), False


def _linears(module: Any) -> list[tuple[str, Any]]:
    return [(n, m) for n, m in module.named_children() if _is_linear(m)]


def _layers(base: Any, count: int, model_names: dict[int, str]) -> tuple[str, Any]:
    import torch

    for _, child in base.named_children():
        if isinstance(child, torch.nn.ModuleList) and len(child) == count and count:
            kinds = {type(b) for b in child}
            shapes = {tuple((n, tuple(p.shape)) for n, p in b.named_parameters()) for b in child}
            if len(kinds) == 1 and len(shapes) == 1:
                return model_names[id(child)], child
            raise PortError(UNRECOGNISED, f"the blocks of {where(model_names[id(child)], '')} "
                            "differ in their parameters, so they can't be stacked into one loop")
    raise PortError(UNRECOGNISED, "no list of repeated blocks found in the model "
                    f"(expected one of {count}, `num_hidden_layers`)")


def _call_order(model: Any, block: Any, ids: Any, pos: Any) -> list[Any]:
    """The direct children of ``block`` (of block 0) in the order they first run."""
    order: list[Any] = []
    hooks = [child.register_forward_pre_hook(lambda m, a, k=None: order.append(m))
             for _, child in block.named_children()]
    try:
        import torch

        with torch.no_grad():
            model(input_ids=ids, position_ids=pos, use_cache=False)
    finally:
        for h in hooks:
            h.remove()
    seen: list[Any] = []
    for m in order:
        if all(m is not x for x in seen):
            seen.append(m)
    return seen


def _rotary(model: Any, config: Any, head_dim: int, names: dict[int, str]) -> tuple[float, int] | None:
    import torch

    rot = next((m for m in model.modules() if "Rotary" in type(m).__name__), None)
    if rot is None:
        return None
    inv = getattr(rot, "inv_freq", None)
    params = dict(getattr(config, "rope_parameters", None) or {})
    kind = params.get("rope_type", "default")
    if kind != "default" or float(getattr(rot, "attention_scaling", 1.0)) != 1.0:
        raise PortError(UNRECOGNISED, f"rotary scaling `{kind}` isn't written yet "
                        f"({where(names.get(id(rot), ''), type(rot).__name__)})")
    base = float(params.get("rope_theta", getattr(config, "rope_theta", 10000.0)))
    if not isinstance(inv, torch.Tensor):
        raise PortError(UNRECOGNISED, f"{where(names.get(id(rot), ''), type(rot).__name__)} "
                        "has no table of frequencies (`inv_freq`)")
    rotated = 2 * int(inv.numel())
    want = 1.0 / base ** (torch.arange(0, rotated, 2, dtype=torch.int64).float() / rotated)
    if rotated > head_dim or not torch.allclose(inv.float().cpu(), want, rtol=1e-6, atol=0):
        raise PortError(UNRECOGNISED, "the rotary frequencies aren't base^(-2i/d) for "
                        f"rope_theta = {base} ({where(names.get(id(rot), ''), type(rot).__name__)})")
    return base, rotated


def _cfg(config: Any, *keys: str) -> Any:
    for k in keys:
        v = getattr(config, k, None)
        if v is not None:
            return v
    return None


@dataclass(frozen=True)
class _Found:
    """What ``analyse`` finds first and every later step reads: the model's module names,
    its embedding, output layer, base model and blocks, block 0's children in the order
    they run on ``ids``/``pos`` (fixed inputs each probe reruns the model on) and, among
    them, the attention and the feed-forward layer."""

    names: dict[int, str]
    embed: Any
    head: Any
    base: Any
    V: int
    D: int
    L: int
    H: int
    layers_path: str
    layers: Any
    block_names: dict[int, str]
    ids: Any
    pos: Any
    order: list[Any]
    attn: Any
    mlp: Any

    @property
    def block(self) -> Any:
        return self.layers[0]


@dataclass(frozen=True)
class _Attention:
    """The attention as read from block 0: its layout, biases, head sizes and fields."""

    layout: str
    qkv_bias: bool
    o_bias: bool
    head_dim: int
    Hkv: int
    path: str
    fields: tuple[Field, ...]


@dataclass(frozen=True)
class _FeedForward:
    """The feed-forward layer as read from block 0: its kind, width, bias, activation
    and fields."""

    kind: str
    F: int
    bias: bool
    activation: str
    path: str
    fields: tuple[Field, ...]


def analyse(model: Any, config: Any, label: str) -> LmPlan:
    """The ``LmPlan`` of the transformers causal LM ``model`` (see the module's
    docstring); ``PortError(UNRECOGNISED)`` naming the module where it isn't one the
    port can write.

    The parts are read in the order they run (embedding, block, its norms, attention
    and feed-forward layer, final norm, output layer), each step given what the ones
    before it found."""
    found = _find_parts(model, config, label)
    attn_norm, mlp_norm, final, norm = _norms(found, config, label)
    att = _attention(model, found, config)
    ffn = _feed_forward(model, found)
    pre, pos_tables = _pre_fields(found, attn_norm, mlp_norm, norm)
    post, tied = _post_fields(found, final, norm)
    rotary = _rotary(model, config, att.head_dim, found.names)
    window = _window(config, label)
    max_pos = int(_cfg(config, "max_position_embeddings", "n_positions") or 4096)
    scale = _scale(found.attn, att.head_dim)
    dims = _dims(found.V, max_pos, found.D, found.H, att.Hkv, att.head_dim, rotary, ffn.F, found.L,
                 att.layout, ffn.kind, window, config)
    x_embed = _embed_scale(model, found.embed, pos_tables, found.layers[0], found.ids, found.pos, found.D)
    cls = type(model).__name__
    model_name = cls.removesuffix("ForCausalLM").removesuffix("LMHeadModel") or "Model"
    return LmPlan(
        model_name=model_name, source_class=cls, model_type=str(getattr(config, "model_type", "")),
        dims=dims, fields=tuple(pre) + att.fields + ffn.fields + tuple(post), norm=norm,
        attention=att.layout, qkv_bias=att.qkv_bias, o_bias=att.o_bias, mlp=ffn.kind,
        mlp_bias=ffn.bias, activation=ffn.activation, rotary=rotary, gqa=att.Hkv != found.H,
        window=int(window) if window is not None else None,
        scale=scale, parallel=bool(getattr(found.block, "use_parallel_residual", False)),
        embed_scale=x_embed, pos_embed=bool(pos_tables), tied=tied, layers=found.layers_path,
        attn_path=att.path, mlp_path=ffn.path,
        config_doc={},
    )


def _find_parts(model: Any, config: Any, label: str) -> _Found:
    """The embedding, output layer and blocks, and block 0's attention and feed-forward
    layer: the children with linear layers, told apart by name and by running order."""
    import torch

    names = _names(model)
    embed = model.get_input_embeddings()
    head = model.get_output_embeddings()
    base = getattr(model, "base_model", None)
    if not isinstance(embed, torch.nn.Embedding) or head is None or base is None or base is model:
        raise PortError(UNRECOGNISED, f"{label} isn't a causal language model with an input "
                        "embedding and an output layer; port it as module:factory")
    V, D = (int(s) for s in embed.weight.shape)
    L = int(config.num_hidden_layers)
    H = int(config.num_attention_heads)
    layers_path, layers = _layers(base, L, names)
    block = layers[0]
    ids = torch.randint(0, V, (2, 5), generator=torch.Generator().manual_seed(3))
    pos = torch.arange(5).expand(2, 5)
    order = _call_order(model, block, ids, pos)
    block_names = {id(m): n for n, m in block.named_children()}
    attn = next((m for m in order if _linears(m) and ("attn" in block_names[id(m)]
                                                    or "attention" in block_names[id(m)])), None)
    mlp = next((m for m in order if _linears(m) and m is not attn), None)
    if attn is None or mlp is None:
        raise PortError(UNRECOGNISED, f"{where(f'{layers_path}.0', type(block).__name__)}: "
                        "no attention and feed-forward layer found in the block")
    return _Found(names=names, embed=embed, head=head, base=base, V=V, D=D, L=L, H=H,
                  layers_path=layers_path, layers=layers, block_names=block_names, ids=ids,
                  pos=pos, order=order, attn=attn, mlp=mlp)


def _norms(found: _Found, config: Any, label: str) -> tuple[Any, Any, Any, Norm]:
    """(the norm before the attention, the one before the feed-forward layer, the final
    norm's module, the final norm): block 0's other children with parameters must be
    exactly those two norms, and every norm must be of one kind and epsilon, since the
    program writes one norm function."""
    import torch

    order, D = found.order, found.D
    extra = [m for m in order if m is not found.attn and m is not found.mlp
             and any(True for _ in m.parameters())]
    norms = [(m, probe_norm(m, D, config)) for m in extra]
    for m, n in norms:
        if n is None:
            at = f"{found.layers_path}.0.{found.block_names[id(m)]}"
            raise PortError(UNRECOGNISED, f"{where(at, type(m).__name__)}: "
                            "not a norm the port recognises (rms_norm by w or 1 + w, layer_norm)")
    ai, mi = order.index(found.attn), order.index(found.mlp)
    attn_norm = next((m for m, _ in norms if order.index(m) == ai - 1), None)
    mlp_norm = next((m for m, _ in norms if order.index(m) == mi - 1), None)
    if attn_norm is None or mlp_norm is None or len(norms) != 2:
        raise PortError(UNRECOGNISED, f"{where(f'{found.layers_path}.0', type(found.block).__name__)}: "
                        "the block isn't a norm before the attention and one before the "
                        "feed-forward layer")
    norm_kinds = {n.kind for _, n in norms if n is not None}
    final = next((m for n, m in found.base.named_children()
                  if m is not found.layers and m is not found.embed and not isinstance(m, torch.nn.Embedding)
                  and probe_norm(m, D, config) is not None), None)
    if final is None:
        raise PortError(UNRECOGNISED, f"{label}: no final norm after the blocks")
    final_norm = probe_norm(final, D, config)
    assert final_norm is not None
    kinds = norm_kinds | {final_norm.kind}
    if len(kinds) != 1 or len({n.eps for _, n in norms if n is not None} | {final_norm.eps}) != 1:
        raise PortError(UNRECOGNISED, f"{label}: its norms differ in kind or epsilon")
    return attn_norm, mlp_norm, final, final_norm


def _linear_fields(fields: list[Field], prefix: str, name: str, bname: str, mod_name: str, mod: Any,
                   axes: str, doc: str) -> bool:
    """Appends to ``fields`` the weight of the linear ``mod`` (child ``mod_name`` of the
    stacked module path ``prefix``) and its bias where it has one; whether it has."""
    out, _, t = _linear_shape(mod)
    fields.append(Field(name, axes, doc, f"{prefix}.{mod_name}.weight", t))
    has_bias = getattr(mod, "bias", None) is not None
    if has_bias:
        fields.append(Field(bname, axes.rsplit(" ", 1)[0], f"The bias of `{name}`.",
                            f"{prefix}.{mod_name}.bias"))
    return has_bias


def _attention(model: Any, found: _Found, config: Any) -> _Attention:
    """Block 0's attention: its projections in running order, the last the output one
    (which gives the head width), the others q, k and v or one fused matrix."""
    attn, H = found.attn, found.H
    ran = _call_order(model, attn, found.ids, found.pos)
    projections = sorted(_linears(attn), key=lambda nm: ran.index(nm[1]) if nm[1] in ran else len(ran))
    attn_path = found.block_names[id(attn)]
    o_name, o_mod = projections[-1]
    o_out, o_in, o_t = _linear_shape(o_mod)
    head_dim = o_in // H
    if o_out != found.D or o_in % H:
        raise PortError(UNRECOGNISED, f"{where(f'{found.layers_path}.0.{attn_path}.{o_name}', 'linear')}: "
                        "not the attention's output projection [D H*Dh]")
    Hkv = int(_cfg(config, "num_key_value_heads") or H)
    p = f"{found.layers_path}.{{l}}.{attn_path}"
    fields: list[Field] = []
    layout, qb = _qkv_fields(fields, p, projections, f"{found.layers_path}.0.{attn_path}", attn, H, Hkv)
    o_bias = _linear_fields(fields, p, "wo", "bo", o_name, o_mod, "L D H*Dh", "The attention's output projection.")
    return _Attention(layout=layout, qkv_bias=qb, o_bias=o_bias, head_dim=head_dim, Hkv=Hkv,
                      path=attn_path, fields=tuple(fields))


def _qkv_fields(fields: list[Field], p: str, projections: list[tuple[str, Any]], at: str, attn: Any,
                H: int, Hkv: int) -> tuple[str, bool]:
    """(layout, whether q, k and v have biases): the input projections (all but the
    last of ``projections``) as three matrices or as one fused one, whose layout its
    name tells; ``at`` is the attention's path in block 0, for errors."""
    inputs = projections[:-1]
    if len(inputs) == 3:
        layout = "separate"
        heads_kv = "Hkv" if Hkv != H else "H"
        qb = _linear_fields(fields, p, "wq", "bq", inputs[0][0], inputs[0][1], "L H*Dh D",
                            "The query projection, `[out in]` as `linear` takes it.")
        _linear_fields(fields, p, "wk", "bk", inputs[1][0], inputs[1][1], f"L {heads_kv}*Dh D",
                       "The key projection.")
        _linear_fields(fields, p, "wv", "bv", inputs[2][0], inputs[2][1], f"L {heads_kv}*Dh D",
                       "The value projection.")
    elif len(inputs) == 1:
        name, mod = inputs[0]
        if name in _KIND_MAJOR:
            layout, doc = "kind_major", "The fused query, key and value projection, rows `[q; k; v]`."
        elif name in _HEAD_MAJOR:
            layout, doc = "head_major", "The fused projection: for each head, its query, key and value rows."
        elif name in _SPLIT:
            layout, doc = "split", "The queries', keys' and values' rows in one matrix, `[out in]`."
        else:
            raise PortError(UNRECOGNISED, f"{where(f'{at}.{name}', 'linear')}: "
                            "a fused projection of an unknown layout")
        if layout != "split" and Hkv != H:
            raise PortError(UNRECOGNISED, f"{where(f'{at}.{name}', 'linear')}: "
                            "a fused projection with grouped keys and values")
        qb = _linear_fields(fields, p, "w_qkv", "b_qkv", name, mod,
                            "L Q D" if layout == "split" else "L 3*D D", doc)
    else:
        raise PortError(UNRECOGNISED, f"{where(at, type(attn).__name__)}: "
                        f"{len(projections)} projections, not q, k, v (or fused) and an output")
    return layout, qb


def _feed_forward(model: Any, found: _Found) -> _FeedForward:
    """Block 0's feed-forward layer: gated (gate, up, down), fused gated (one matrix
    twice the hidden width, then down) or plain (up, down), with its one activation."""
    import torch

    mlp, layers_path = found.mlp, found.layers_path
    mlp_path = found.block_names[id(mlp)]
    ran = _call_order(model, mlp, found.ids, found.pos)
    lin = sorted(_linears(mlp), key=lambda nm: ran.index(nm[1]) if nm[1] in ran else len(ran))
    p = f"{layers_path}.{{l}}.{mlp_path}"
    acts = [m for _, m in mlp.named_children() if not _is_linear(m) and not isinstance(m, torch.nn.Dropout)]
    activation = probe_activation(acts[0]) if len(acts) == 1 else None
    if activation is None:
        raise PortError(UNRECOGNISED, f"{where(f'{layers_path}.0.{mlp_path}', type(mlp).__name__)}: "
                        "its activation isn't one the language has (silu, gelu, relu)")
    fields: list[Field] = []
    if len(lin) == 3:
        kind = "gated"
        gate = next((x for x in lin if "gate" in x[0]), lin[0])
        up = next(x for x in lin[:2] if x is not gate)
        F = _linear_shape(gate[1])[0]
        mlp_bias = _linear_fields(fields, p, "w_gate", "b_gate", gate[0], gate[1], "L F D",
                                  "The feed-forward layer's gate.")
        _linear_fields(fields, p, "w_up", "b_up", up[0], up[1], "L F D", "Its up projection.")
        _linear_fields(fields, p, "w_down", "b_down", lin[2][0], lin[2][1], "L D F", "Its down projection.")
    elif len(lin) == 2:
        first_out = _linear_shape(lin[0][1])[0]
        second_in = _linear_shape(lin[1][1])[1]
        if first_out == 2 * second_in:
            kind, F = "fused_gated", second_in
            mlp_bias = _linear_fields(fields, p, "w_gate_up", "b_gate_up", lin[0][0], lin[0][1], "L G D",
                                      "The gate's rows, then the up projection's.")
        else:
            kind, F = "plain", second_in
            mlp_bias = _linear_fields(fields, p, "w_up", "b_up", lin[0][0], lin[0][1], "L F D",
                                      "The feed-forward layer's first projection.")
        _linear_fields(fields, p, "w_down", "b_down", lin[1][0], lin[1][1], "L D F", "Its second projection.")
    else:
        raise PortError(UNRECOGNISED, f"{where(f'{layers_path}.0.{mlp_path}', type(mlp).__name__)}: "
                        f"{len(lin)} projections, not a feed-forward layer the port recognises")
    return _FeedForward(kind=kind, F=F, bias=mlp_bias, activation=activation, path=mlp_path,
                        fields=tuple(fields))


def _pre_fields(found: _Found, attn_norm: Any, mlp_norm: Any, norm: Norm) -> tuple[list[Field], list[Any]]:
    """(the fields before the attention's: the embedding, a position table where the
    base model has one, the blocks' two norms; the position tables)."""
    import torch

    names, embed, layers_path = found.names, found.embed, found.layers_path
    norm_fields = [("attn_norm", found.block_names[id(attn_norm)], "The norm before each attention"),
                   ("mlp_norm", found.block_names[id(mlp_norm)], "The norm before each feed-forward layer")]
    pre: list[Field] = [Field("embed", "V D", "A token of width D for each token id.",
                              f"{names[id(embed)]}.weight")]
    pos_tables = [m for _, m in found.base.named_children()
                  if isinstance(m, torch.nn.Embedding) and m is not embed]
    if pos_tables:
        pre.append(Field("pos_embed", "P D", "A vector of width D added for each position.",
                         f"{names[id(pos_tables[0])]}.weight"))
    for fname, sub, doc in norm_fields:
        key = f"{layers_path}.{{l}}.{sub}"
        if norm.kind == "layer":
            pre.append(Field(f"{fname}_w", "L D", f"{doc}: its scale.", key + ".weight"))
            pre.append(Field(f"{fname}_b", "L D", f"{doc}: its shift.", key + ".bias"))
        else:
            pre.append(Field(fname, "L D", f"{doc}: its scale{' (less 1)' if norm.kind == 'rms1p' else ''}.",
                             key + ".weight"))
    return pre, pos_tables


def _post_fields(found: _Found, final: Any, norm: Norm) -> tuple[list[Field], bool]:
    """(the fields after the feed-forward layer's: the final norm and the output layer
    unless it is tied to the embedding; whether it is)."""
    names, embed, head = found.names, found.embed, found.head
    final_name = names[id(final)]
    post: list[Field] = []
    if norm.kind == "layer":
        post += [Field("norm_w", "D", "The final norm: its scale.", f"{final_name}.weight"),
                 Field("norm_b", "D", "The final norm: its shift.", f"{final_name}.bias")]
    else:
        post.append(Field("norm", "D", "The scale of the final norm.", f"{final_name}.weight"))
    tied = head.weight is embed.weight or head.weight.data_ptr() == embed.weight.data_ptr()
    if getattr(head, "bias", None) is not None:
        raise PortError(UNRECOGNISED, f"{where(names[id(head)], 'linear')}: an output layer with a bias")
    if not tied:
        post.append(Field("output", "V D", "The output layer, a score for each token id.",
                          f"{names[id(head)]}.weight"))
    return post, tied


def _window(config: Any, label: str) -> Any:
    """The sliding window (``sliding_window``) where every layer has it, ``None`` where
    none has; layers with and without one aren't written."""
    window = _cfg(config, "sliding_window")
    layer_types = getattr(config, "layer_types", None)
    if window is not None and layer_types and set(layer_types) != {"sliding_attention"}:
        window = None if set(layer_types) == {"full_attention"} else window
        if window is not None:
            raise PortError(UNRECOGNISED, f"{label}: layers with and without a sliding window")
    return window


def _scale(attn: Any, head_dim: int) -> float | None:
    """The attention's own scale (its ``scaling``) where it isn't 1/sqrt(Dh)."""
    scaling = getattr(attn, "scaling", None)
    if isinstance(scaling, float) and not math.isclose(scaling, head_dim ** -0.5, rel_tol=1e-9):
        return scaling
    return None


def _embed_scale(model: Any, embed: Any, pos_tables: list[Any], block: Any, ids: Any, pos: Any,
                 D: int) -> bool:
    """Whether the blocks see the embedding times sqrt(D) (Gemma's), found by running
    the model up to its first block."""
    import torch

    seen: list[Any] = []
    hook = block.register_forward_pre_hook(
        lambda m, args, kwargs: seen.append(args[0] if args else kwargs["hidden_states"]),
        with_kwargs=True)
    try:
        with torch.no_grad():
            model(input_ids=ids, position_ids=pos, use_cache=False)
    finally:
        hook.remove()
    with torch.no_grad():
        x = torch.nn.functional.embedding(ids, embed.weight)
        if pos_tables:
            x = x + torch.nn.functional.embedding(pos, pos_tables[0].weight)
    got = seen[0]
    if torch.allclose(got, x, rtol=1e-5, atol=1e-7):
        return False
    if torch.allclose(got, x * (D ** 0.5), rtol=1e-5, atol=1e-6):
        return True
    raise PortError(UNRECOGNISED, "the first block doesn't get the token embedding "
                    "(nor the embedding times sqrt(D))")


def _dims(V: int, P: int, D: int, H: int, Hkv: int, Dh: int, rotary: tuple[float, int] | None,
          F: int, L: int, layout: str, mlp: str, window: Any, config: Any) -> tuple[Dim, ...]:
    """The program's sizes, each named as the configuration names it."""
    dims = [Dim("V", V, str(V), "Number of tokens in the vocabulary (`vocab_size`)."),
            Dim("P", P, str(P), "Longest sequence the positions allow (`max_position_embeddings`)."),
            Dim("D", D, str(D), "Width of each token (`hidden_size`)."),
            Dim("H", H, str(H), "Number of query heads (`num_attention_heads`).")]
    if Hkv != H:
        dims += [Dim("Hkv", Hkv, str(Hkv), "Number of key and value heads "
                     "(`num_key_value_heads`), each shared by H / Hkv query heads."),
                 Dim("R", H // Hkv, "H / Hkv", "Query heads per key and value head.")]
    dims.append(Dim("Dh", Dh, "D / H" if Dh * H == D else str(Dh),
                    "Width of each head (`head_dim`)."))
    if rotary is not None:
        rotated = rotary[1]
        if rotated == Dh:
            dims.append(Dim("Dr", Dh // 2, "Dh / 2", "Half the width of a head: the features "
                            "rotary pairs with the other half."))
        else:
            frac = Dh // rotated if Dh % rotated == 0 else 0
            dims += [Dim("Drot", rotated, f"Dh / {frac}" if frac else str(rotated),
                         "Features of each head that rotary turns (`partial_rotary_factor`)."),
                     Dim("Dq", rotated // 2, "Drot / 2", "Half of them: the features rotary "
                         "pairs with the other half.")]
    dims.append(Dim("F", F, "4 * D" if F == 4 * D and _cfg(config, "intermediate_size") is None
                    else str(F), "Hidden width of the feed-forward layer (`intermediate_size`)."))
    dims.append(Dim("L", L, str(L), "Number of blocks (`num_hidden_layers`)."))
    if layout == "split":
        dims.append(Dim("Q", (H + 2 * Hkv) * Dh, "(H + 2 * Hkv) * Dh" if Hkv != H else "3 * H * Dh",
                        "Rows of the fused projection: the queries', then the keys' and values'."))
    if mlp == "fused_gated":
        dims.append(Dim("G", 2 * F, "2 * F", "Rows of the fused gate and up projection."))
    if window is not None:
        dims.append(Dim("W", int(window), str(int(window)),
                        "Positions each query sees, itself included (`sliding_window`)."))
    return tuple(dims)
