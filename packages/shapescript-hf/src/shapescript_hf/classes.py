"""The transformers classes of ``modeling_shapescript.py``, around the compiled function:
the configuration, the attention a layer runs (with transformers' attention table and the
cache), one call's ``ShapeScriptCall``, the pretrained-model base, ``ShapeScriptModel``
(whose forward calls the compiled function) and, for a language model,
``ShapeScriptForCausalLM``. Each function below writes one part of that text, in the
file's order."""

from __future__ import annotations

import textwrap
from typing import Any

from shapescript_hf.layer_classes import dict_text as _dict_text
from shapescript_hf.layer_classes import layer_classes
from shapescript_hf.plan import Plan

# The configuration: what engines read, and the model's own.
_CONFIG = '''\
# ------------------------------------------------------------------------------
# The transformers classes.

class ShapeScriptConfig(PretrainedConfig):
    """The configuration: what engines read (sizes, heads, layers, attention scales)."""

    model_type = "shapescript"
    # How tensor and pipeline parallelism split the base model (transformers' and vLLM's
    # `tp_plan="auto"`, pipeline stages): empty where its layers are stacked.
    base_model_tp_plan = {}
    base_model_pp_plan = {}

    def __init__(self, vocab_size=None, hidden_size=None, num_hidden_layers=0,
                 num_attention_heads=None, num_key_value_heads=None, head_dim=None,
                 max_position_embeddings=4096, attention_scales=None, sliding_window=None,
                 layer_types=None, tie_word_embeddings=False, use_cache=True, shapescript=None,
                 **kwargs):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads
        self.head_dim = head_dim
        self.max_position_embeddings = max_position_embeddings
        self.attention_scales = list(attention_scales or [])
        # The window of the layers whose type is "sliding_attention", as transformers'
        # and vLLM's sliding-window models say it; None: every layer sees every key.
        self.sliding_window = sliding_window
        if layer_types is not None:
            self.layer_types = list(layer_types)
        # False: the cache-less path, each step of generate computing from the start.
        self.use_cache = use_cache
        self.shapescript = dict(shapescript or {})
        super().__init__(tie_word_embeddings=tie_word_embeddings, **kwargs)
'''

# The source's attention, the causal mask, and the module each layer's attention is.
_ATTENTION = '''

def eager_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0,
                    **kwargs):
    """The source's own attention: `scaled_dot_product_attention`, each key and value head
    serving `num_key_value_groups` neighbouring query heads, with `attention_mask` (None:
    the plain causal mask, which torch applies without building it)."""
    # The shape first: under torch.compile its comparison becomes a guard, and a bool.
    is_causal = query.shape[2] > 1 and attention_mask is None
    out = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, is_causal=is_causal, scale=scaling,
        enable_gqa=module.num_key_value_groups > 1)
    return out.transpose(1, 2), None


def causal_mask(query, key, padding, window):
    """Which keys each query sees: itself and the earlier ones (the last `window` of them
    with a sliding window), of its own sequence; the keys are the last ones, the queries
    the last of them. None where torch's plain causal mask does: no padding, no key
    hidden by the window, and as many queries as keys or one."""
    n, m = query.shape[-2], key.shape[-2]
    hides = window is not None and window < m
    if padding is None and not hides and (n == m or n == 1):
        return None
    at = torch.arange(m - n, m, device=query.device)[:, None]
    keys = torch.arange(m, device=query.device)[None, :]
    mask = keys <= at
    if hides:
        mask = mask & (keys > at - window)
    if padding is not None:
        # A padded query still sees itself, so no row is empty (an empty row is NaN).
        return (mask & padding[:, None, None, -m:].bool()) | (keys == at)
    return mask[None, None]    # [b, heads, n, m], as every attention function takes it


# The attention functions of transformers' table that take the mask causal_mask makes.
MASKED = (None, "eager", "sdpa")


class ShapeScriptAttention(nn.Module):
    """The attention of one layer: the function of transformers' table the model is set
    to use (`eager`: the source's), with this layer's scale, window and part of the
    cache. Keys and values come with their own heads, `num_key_value_heads`, as the cache
    keeps them; the attention function repeats them to the query heads."""

    is_causal = True

    def __init__(self, config, layer_idx):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.head_dim = config.head_dim
        self.num_key_value_groups = config.num_attention_heads // config.num_key_value_heads
        self.scaling = config.attention_scales[layer_idx]
        types = getattr(config, "layer_types", None)
        self.sliding_window = (config.sliding_window if types is not None
                               and types[layer_idx] == "sliding_attention" else None)

    def forward(self, query, key, value, scale, window, call, **kwargs):
        if scale is not None and scale != self.scaling:
            raise ValueError(f"attention {self.layer_idx}: scale {scale} differs from the "
                             f"{self.scaling} the model was exported with")
        if window != self.sliding_window:
            raise ValueError(f"attention {self.layer_idx}: window {window} differs from the "
                             f"{self.sliding_window} the model was exported with")
        if call.cache is not None:
            key, value = call.cache.update(key, value, self.layer_idx)
        implementation = self.config._attn_implementation
        mask = None
        if implementation in MASKED:
            mask = call.mask(query, key, window)
        elif call.padding is not None:
            raise ValueError(f"padded input needs the eager or sdpa attention, not "
                             f"{implementation!r}")
        attend = ALL_ATTENTION_FUNCTIONS.get_interface(implementation, eager_attention)
        out, _ = attend(self, query, key, value, mask, scaling=self.scaling, dropout=0.0,
                        sliding_window=window, **kwargs)
        # eager gives [b n H Dh]; vLLM's [b*n H*Dh]: both back to the source's [b H n Dh].
        b, n = query.shape[0], query.shape[2]
        return out.reshape(b, n, -1, self.head_dim).transpose(1, 2)
'''

# The base class that transformers loads and initializes weights through.
_PRETRAINED = '''

class ShapeScriptPreTrainedModel(PreTrainedModel):
    config_class = ShapeScriptConfig
    base_model_prefix = "model"
    _no_split_modules = []
    _supports_attention_backend = True
    # transformers' sdpa function, by default, with the mask causal_mask makes.
    _supports_sdpa = True

    def _init_weights(self, module):
        # New weights (from_config); from_pretrained loads every one from the file.
        for name, p in module.named_parameters(recurse=False):
            if p.is_floating_point():
                if p.dim() >= 2:
                    nn.init.normal_(p, std=0.02)
                else:
                    nn.init.ones_(p) if "norm" in name else nn.init.zeros_(p)
'''


def classes_source(plan: Plan, fields: list[str], dtype_expr: str, inputs: list[str],
                   lm: bool, compiled: str, compiled_block: str = "block") -> str:
    """The classes' text: ``fields`` the lines making the model's parameters,
    ``dtype_expr`` the expression of the model's dtype, ``inputs`` the function's
    parameters after the model, ``lm`` whether a ``ShapeScriptForCausalLM`` follows,
    ``compiled`` the compiled function's name, ``compiled_block`` its block's (the
    layered layout's layer)."""
    refusal = plan.form.padding_refusal if plan.language_model else None
    config = _CONFIG
    if plan.layered:
        lay = plan.layout
        config = config.replace("    base_model_tp_plan = {}\n    base_model_pp_plan = {}\n",
                                "    base_model_tp_plan = " + _dict_text(lay.tp_plan)
                                + "\n    base_model_pp_plan = " + _dict_text(lay.pp_plan)
                                + "\n")
    out = [config, _ATTENTION, _refusal(refusal), _call_class(dtype_expr), _PRETRAINED]
    if plan.layered:
        out.append(layer_classes(plan, compiled_block))
    out.append(_model_init(plan, fields))
    if plan.split:
        out.append(_split_forward(plan, compiled))
    else:
        out.append(_plain_forward(plan, inputs, compiled))
    if lm:
        out.append(_causal_lm(plan))
    return "".join(out)


def _refusal(reason: str | None) -> str:
    """Why padded input can't be masked, or None: padded keys are hidden from every
    attention along the tokens (the engine's, or the source's own with its mask)."""
    return f'''

# Why padded input can't be masked (None: it can).
PADDING_REFUSAL = {reason!r}
'''


def _call_class(dtype_expr: str) -> str:
    """``ShapeScriptCall``: one call of the model, as the compiled source sees it."""
    return '''

class ShapeScriptCall:
    """One call of the model, as the compiled source sees it (`attn`): it runs the
    attentions in order, with the cache and the arguments transformers gave."""

    def __init__(self, model, padding, cache, kwargs, embeds=None):
        self.model = model
        # transformers' attention_mask, [b, past + n], 0 at padding; None: no padding (a
        # mask of ones is none, and leaves torch its fastest causal kernels).
        if padding is not None and (padding.dim() != 2 or bool(padding.all())):
            padding = None
        if padding is not None and PADDING_REFUSAL is not None:
            raise ValueError("this model can't take padded input (an attention_mask with "
                             f"zeros): {PADDING_REFUSAL}; give it one sequence at a time")
        self.padding = padding
        self.cache = cache
        self.kwargs = kwargs
        self.embeds = embeds
        self.layer = 0
        # The layer running, where the layers are modules (each attention is its own).
        self.current = None
        self.masks = {}
        self.dtype = ''' + dtype_expr + '''

    def embed(self, ids):
        """The embedding of the token ids, or the vectors an engine looked up itself."""
        return self.model.embed_tokens(ids) if self.embeds is None else self.embeds

    def attention(self, query, key, value, scale, window=None):
        if self.current is not None:
            layer = self.current.self_attn
        else:
            layer = self.model.attentions[self.layer]
            self.layer += 1
        return layer(query, key, value, scale, window, self, **self.kwargs)

    def mask(self, query, key, window):
        """`causal_mask`, made once a call for each window: the layers of one window
        see as many keys (keyed by sizes, it would fix them under torch.compile)."""
        if window not in self.masks:
            self.masks[window] = causal_mask(query, key, self.padding, window)
        return self.masks[window]

    def masked_attention(self, query, key, value, mask, scale):
        """The source's attention with its own mask, padded keys hidden from it (a padded
        query sees itself, so that no row is empty)."""
        if self.padding is not None:
            n, m = query.shape[-2], key.shape[-2]
            at = torch.arange(m - n, m, device=query.device)[:, None]
            keys = torch.arange(m, device=query.device)[None, :]
            own = mask if mask is not None else torch.ones((n, m), dtype=torch.bool,
                                                            device=query.device)
            padded = ~self.padding[:, None, -n:, None].bool()
            mask = (own & self.padding[:, None, None, -m:].bool()) | (padded & (keys == at))
        return torch.nn.functional.scaled_dot_product_attention(query, key, value,
                                                                attn_mask=mask, scale=scale)

    def in_model_dtype(self, x):
        """What the source computed in f32 on purpose, back in the model's dtype (the
        function's type says it is a float: no test on the value, which would be a
        branch to a tracer)."""
        return x.to(self.dtype)
'''


def _model_init(plan: Plan, fields: list[str]) -> str:
    """``ShapeScriptModel``'s head and ``__init__``: the fields as parameters, the
    embedding table an engine replaces, an attention module a layer."""
    model_doc = ("The model up to the output layer: its forward gives the hidden states "
                 "the output layer takes." if plan.split else
                 f"The model: its forward is `{plan.source.fn}`, compiled, and takes the "
                 "function's other parameters, by position or by name.")
    fields_code = textwrap.indent("\n".join(fields), " " * 8) if fields else ""
    embed_init = ("        # The embedding table, which an engine replaces with its own.\n"
                  "        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)\n"
                  if plan.split else "")
    attn_init = ("        # One attention module a layer: transformers' attention interface needs its\n"
                 "        # layer_idx, and the engine keeps a part of its cache for each.\n"
                 "        self.attentions = nn.ModuleList(\n"
                 "            ShapeScriptAttention(config, i) for i in range(config.num_hidden_layers))\n"
                 if plan.servable else "")
    if plan.layered:
        lay = plan.layout
        attn_init = ("        # The layers, each with its attention, projections and norms, which an\n"
                     "        # engine shards (base_model_tp_plan) or stages (base_model_pp_plan).\n"
                     "        self.layers = nn.ModuleList(\n"
                     "            ShapeScriptDecoderLayer(config, i) for i in range(config.num_hidden_layers))\n")
        if lay.final_norm is not None:
            width = plan.source.fields[lay.final_norm][0][0]
            attn_init += ("        # The norm after the last layer (a stage without it gives its states on).\n"
                          f"        self.norm = ShapeScriptNorm({width}, {lay.final_eps!r})\n")
    return f'''

class ShapeScriptModel(ShapeScriptPreTrainedModel):
    """{model_doc}"""

    def __init__(self, config):
        super().__init__(config)
{embed_init}{fields_code}
{attn_init}        self.post_init()
'''


def _split_forward(plan: Plan, compiled: str) -> str:
    """``ShapeScriptModel``'s forward when an engine's embedding and output layer are
    split off: the hidden states, with transformers' cache and arguments."""
    pos_arg = ", position_ids" if plan.form.pos else ""
    return f'''
    def get_input_embeddings(self):
        return self.embed_tokens

    def set_input_embeddings(self, value):
        self.embed_tokens = value

    def forward(self, input_ids=None, attention_mask=None, position_ids=None,
                inputs_embeds=None, cache=None, use_cache=None, return_dict=None, **kwargs):
        past_key_values = kwargs.pop("past_key_values", None)
        for unused in ("output_attentions", "output_hidden_states", "cache_position"):
            kwargs.pop(unused, None)
        cache = cache if cache is not None else past_key_values
        if use_cache and cache is None:
            cache = DynamicCache(config=self.config)
        if not use_cache:
            cache = None
        # Vectors an engine looked up stand in for the token ids by their first feature,
        # [b n] as the source checks the ids.
        ids = input_ids if inputs_embeds is None else inputs_embeds[..., 0]
        b, n = ids.shape[0], ids.shape[1]
        if position_ids is None:
            past = cache.get_seq_length() if cache is not None else 0
            position_ids = torch.arange(past, past + n, device=ids.device).expand(b, n)
        attn = ShapeScriptCall(self, attention_mask, cache, kwargs, inputs_embeds)
        hidden = {compiled}(attn, self, ids{pos_arg})
        if return_dict is False:
            return (hidden,) if cache is None else (hidden, cache)
        # By position: transformers 5 renames the cache field (past_key_values, cache).
        return BaseModelOutputWithPast(hidden, cache)
'''


def _plain_forward(plan: Plan, inputs: list[str], compiled: str) -> str:
    """``ShapeScriptModel``'s forward otherwise: the function's other parameters, by
    position or by name (``inputs``: their Python names), and what it gives; a language
    model's also takes transformers' ``attention_mask``."""
    params = ", ".join(_param_text(name, p) for name, p in zip(inputs, plan.source.params))
    if plan.language_model:
        params += ", attention_mask=None"
    padding = "attention_mask" if plan.language_model else "None"
    written = ", ".join(p.name for p in plan.source.params)
    args = "".join(", " + name for name in inputs)
    return f'''
    def forward(self, {params + ", " if params else ""}**kwargs):
        """`{plan.source.fn}(m, {written})`: what the function gives."""
        return {compiled}(ShapeScriptCall(self, {padding}, None, {{}}), self{args})
'''


def _param_text(name: str, p: Any) -> str:
    """A parameter with its default, which is a host number or bool (E1705)."""
    from shapescript import api

    if p.default is None:
        return name
    return f"{name}={api.py_literal(_literal(p.default))}"


def _literal(e: Any) -> Any:
    kind = type(e).__name__
    if kind in ("Num", "Bool"):
        return e.value
    if kind == "UnaryOp" and e.op == "-":
        return -_literal(e.operand)
    if kind == "NoneLit":
        return None
    raise ValueError(f"a default the folder's forward can't hold: {kind}")


def _causal_lm(plan: Plan) -> str:
    split = plan.split
    tied = plan.form.tied if split else False
    tied_keys = '{"lm_head.weight": "model.embed_tokens.weight"}' if tied else "{}"
    # The output layer splits along the vocabulary, each rank's scores gathered.
    tp_line = ('    _tp_plan = {"lm_head": "colwise_gather_output"}\n'
               if plan.layered and not tied else "")
    pos = plan.form.pos
    if split:
        call = '''        out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                         position_ids=position_ids, inputs_embeds=inputs_embeds,
                         cache=cache if cache is not None else past_key_values,
                         use_cache=use_cache, return_dict=False, **kwargs)
        hidden = out[0]
        # Logits only where asked (generate asks for the last position).
        if isinstance(logits_to_keep, int) and logits_to_keep > 0:
            hidden = hidden[:, -logits_to_keep:]
        logits = self.lm_head(hidden)
        past = out[1] if len(out) > 1 else None'''
        head = '''        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
'''
        emb = '''
    def get_input_embeddings(self):
        return self.model.embed_tokens

    def set_input_embeddings(self, value):
        self.model.embed_tokens = value

    def get_output_embeddings(self):
        return self.lm_head

    def set_output_embeddings(self, value):
        self.lm_head = value
'''
    else:
        pos_line = ""
        if pos:
            pos_line = '''        if position_ids is None:
            n = input_ids.shape[1]
            position_ids = torch.arange(n, device=input_ids.device).expand(input_ids.shape[0], n)
'''
        call = pos_line + f'''        logits = self.model(input_ids{", position_ids" if pos else ""},
                            attention_mask=attention_mask)
        past = None'''
        head = ""
        emb = ""
    return f'''

class ShapeScriptForCausalLM(ShapeScriptPreTrainedModel, GenerationMixin):
    """The language model: the model and its output layer, for `generate`."""

    _tied_weights_keys = {tied_keys}
{tp_line}
    def __init__(self, config):
        super().__init__(config)
        self.model = ShapeScriptModel(config)
{head}        self.post_init()
{emb}
    def forward(self, input_ids=None, attention_mask=None, position_ids=None,
                inputs_embeds=None, cache=None, use_cache=None, labels=None,
                logits_to_keep=0, return_dict=None, **kwargs):
        past_key_values = kwargs.pop("past_key_values", None)
        use_cache = self.config.use_cache if use_cache is None else use_cache
{call}
        loss = None
        if labels is not None:
            loss = self.loss_function(logits, labels, vocab_size=self.config.vocab_size)
        return CausalLMOutputWithPast(loss, logits, past)

    def prepare_inputs_for_generation(self, input_ids, attention_mask=None, **kwargs):
        if not self.config.use_cache:
            # Without a cache every step computes from the start, so it takes every token.
            return {{"input_ids": input_ids, "attention_mask": attention_mask, "use_cache": False}}
        return super().prepare_inputs_for_generation(input_ids, attention_mask=attention_mask,
                                                     **kwargs)
'''
