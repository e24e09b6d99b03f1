"""The text of ``modeling_shapescript.py``: the compiled forward function, the runtime
helpers it uses, and the transformers classes around it.

The function is compiled by the core's ``generate_functions`` with three hooks:

- every function takes ``attn``, the ``ShapeScriptCall`` of one forward call, first;
- in a model an engine can serve, ``embedding(ids, m.E)`` becomes ``attn.embed(ids)``
  (the model's ``embed_tokens``, which vLLM replaces with its own), the final
  ``linear(h, m.W)`` becomes ``h`` (``lm_head`` is ``ShapeScriptForCausalLM``'s, or
  vLLM's), and ``scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])`` becomes
  ``attn.attention(q, k, v, scale)``: the next ``ShapeScriptAttention``, which calls the
  attention function of transformers' table the model is set to use, with the cache;
- a function that computes in f32 on purpose (it converts to an explicit float dtype)
  gives its result back in the model's dtype, as its declared, defaulted f32 says.
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from typing import Any

from shapescript.api import vocab

from shapescript_hf.plan import Plan, walk

FLOAT_DTYPES = vocab.FLOAT_DTYPES
_TORCH = vocab.TORCH_DTYPE_NAMES


@dataclass
class Modeling:
    """The modeling file's text and what config.json must agree with."""

    source: str


def _computes_in_f32(sig: Any) -> bool:
    """Whether a function converts to or makes an explicit float dtype, or computes with a
    parameter of one (a function that only passes such a parameter on doesn't)."""
    typed = {p.name for p in sig.decl.params
             if type(p.type).__name__ == "TensorTypeExpr" and p.type.dtype in FLOAT_DTYPES}
    body = sig.decl.body if isinstance(sig.decl.body, tuple) else (sig.decl.body,)
    for node in (n for item in body for n in walk(item)):
        if type(node).__name__ in ("BinOp", "UnaryOp") and any(
                type(x).__name__ == "Name" and x.id in typed
                for x in (getattr(node, "left", None), getattr(node, "right", None),
                          getattr(node, "operand", None))):
            return True
        kind = type(node).__name__
        if kind == "Convert" and getattr(node.target, "dtype", None) in FLOAT_DTYPES:
            return True
        if kind == "Constructor" and getattr(node, "dtype", None) in FLOAT_DTYPES:
            return True
    return False


def _defaulted_float_return(sig: Any) -> bool:
    ret = getattr(sig.decl, "ret", None)
    if type(ret).__name__ != "TensorTypeExpr" or ret.dtype is not None:
        return False
    dom = ret.domain.name if ret.domain is not None else None
    return dom not in ("Index", "Mask")


def _defined(text: str) -> set[str]:
    """The names the top level of ``text`` binds (its imports, classes and functions)."""
    import ast

    out: set[str] = set()
    for node in ast.parse(text).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


def compiled_functions(plan: Plan, reserved: set[str] | frozenset[str] = frozenset()) -> Any:
    """The forward function and what it reaches, compiled with the hooks above, none
    named as one of ``reserved`` (a ``FunctionsModule``: the source, and each function's
    name in it)."""
    from shapescript import api

    form = plan.form
    servable = plan.servable
    split = plan.split
    attentions = {id(c) for c in form.attentions} if servable else set()

    def calls(site: Any) -> str | None:
        node = site.node
        if split and node is form.embed_call:
            return f"attn.embed({site.arg(0)})"
        if split and node is form.output_call:
            return site.arg(0)
        if id(node) in attentions:
            scale = site.kwarg("scale") or "None"
            return f"attn.attention({site.arg(0)}, {site.arg(1)}, {site.arg(2)}, {scale})"
        return None

    def returns(sig: Any, code: str) -> str:
        if _defaulted_float_return(sig) and _computes_in_f32(sig):
            return f"attn.in_model_dtype({code})"
        return code

    return api.generate_functions(plan.source.program, plan.source.fn, context="attn",
                                  calls=calls, returns=returns, reserved=reserved)


def _field_lines(plan: Plan) -> list[str]:
    lines = []
    for name, (shape, dtype) in plan.source.fields.items():
        if name in plan.engine_fields:
            continue
        decl = plan.written_types.get(name, "")
        dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
        dt = "" if dtype == "f32" else f", dtype=torch.{_TORCH.get(dtype, 'float32')}"
        grad = "" if dtype in FLOAT_DTYPES else ", requires_grad=False"
        lines.append(f"self.{name} = nn.Parameter(torch.empty(({dims}){dt}){grad})  # {decl}")
    return lines


def modeling_source(plan: Plan) -> str:
    """The whole of ``modeling_shapescript.py``."""
    src = plan.source
    base = os.path.basename(src.path)
    fields = _field_lines(plan)
    first_float = next((n for n, (_, dt) in src.fields.items()
                        if dt in FLOAT_DTYPES and n not in plan.engine_fields), None)
    dtype_expr = (f"model.{first_float}.dtype" if first_float is not None
                  else "model.embed_tokens.weight.dtype" if plan.split else "torch.float32")
    lm = plan.language_model
    inputs = [p.name for p in src.params]
    head = f'''\
# Generated by `shapescript export --hf` from {base} (function `{src.fn}`): edit that
# file and export again rather than editing this one.
"""`{src.fn}` of {base}, compiled, as a transformers model (trust_remote_code=True).

It needs torch, einops and transformers. The model's fields are the parameters of
`ShapeScriptModel`, under their own names{", but for the engine's parts: the embedding table is `embed_tokens.weight` and the output layer `lm_head.weight` of `ShapeScriptForCausalLM`" if plan.split else ""}.
"""

import torch
from torch import nn
from transformers import GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.cache_utils import DynamicCache
from transformers.modeling_outputs import BaseModelOutputWithPast, CausalLMOutputWithPast
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

'''
    # The source's functions take no name the file's own code has.
    own = _defined(head + _classes(plan, fields, dtype_expr, inputs, lm, src.fn))
    compiled = compiled_functions(plan, own)
    body = ("# " + "-" * 78 + f"\n# The source, compiled: `{src.fn}` and the functions it "
            "calls.\n\n" + compiled.source)
    classes = _classes(plan, fields, dtype_expr, inputs, lm, compiled.names[src.fn])
    return head + body + "\n\n" + classes


def _classes(plan: Plan, fields: list[str], dtype_expr: str, inputs: list[str], lm: bool,
             compiled: str) -> str:
    src = plan.source
    split = plan.split
    servable = plan.servable
    fn = src.fn
    fields_code = textwrap.indent("\n".join(fields), " " * 8) if fields else ""
    embed_init = ("        # The embedding table, which an engine replaces with its own.\n"
                  f"        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)\n"
                  if split else "")
    attn_init = ("        # One attention module a layer: transformers' attention interface needs its\n"
                 "        # layer_idx, and the engine keeps a part of its cache for each.\n"
                 "        self.attentions = nn.ModuleList(\n"
                 "            ShapeScriptAttention(config, i) for i in range(config.num_hidden_layers))\n"
                 if servable else "")
    out: list[str] = []
    out.append('''\
# ------------------------------------------------------------------------------
# The transformers classes.

class ShapeScriptConfig(PretrainedConfig):
    """The configuration: what engines read (sizes, heads, layers, attention scales)."""

    model_type = "shapescript"
    base_model_tp_plan = {}

    def __init__(self, vocab_size=None, hidden_size=None, num_hidden_layers=0,
                 num_attention_heads=None, num_key_value_heads=None, head_dim=None,
                 max_position_embeddings=4096, attention_scales=None,
                 tie_word_embeddings=False, use_cache=True, shapescript=None, **kwargs):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads
        self.head_dim = head_dim
        self.max_position_embeddings = max_position_embeddings
        self.attention_scales = list(attention_scales or [])
        # False: the cache-less path, each step of generate computing from the start.
        self.use_cache = use_cache
        self.shapescript = dict(shapescript or {})
        super().__init__(tie_word_embeddings=tie_word_embeddings, **kwargs)


def eager_attention(module, query, key, value, attention_mask, scaling=None, dropout=0.0,
                    **kwargs):
    """The source's own attention: `scaled_dot_product_attention` with the causal mask
    (shifted by the cached length, and with padding when there is some; None: the plain
    causal mask, which torch applies without building it)."""
    out = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, is_causal=attention_mask is None,
        scale=scaling)
    return out.transpose(1, 2), None


def causal_mask(query, key, padding):
    """Which keys each query sees: the earlier ones and itself, of its own sequence
    (None when that is the plain causal mask: no cache, no padding)."""
    n, m = query.shape[-2], key.shape[-2]
    if padding is None and n == m:
        return None
    mask = torch.ones((n, m), dtype=torch.bool, device=query.device).tril(m - n)
    if padding is not None:
        # A padded query still sees itself, so no row is empty (an empty row is NaN).
        keep = padding[:, None, None, -m:].bool()
        mask = (mask & keep) | torch.eye(n, m, dtype=torch.bool, device=query.device).roll(m - n, 1)
    return mask


class ShapeScriptAttention(nn.Module):
    """The attention of one layer: the function of transformers' table the model is set
    to use (`eager`: the source's), with this layer's scale and part of the cache. Keys
    and values come with as many heads as queries."""

    is_causal = True

    def __init__(self, config, layer_idx):
        super().__init__()
        self.config = config
        self.layer_idx = layer_idx
        self.head_dim = config.head_dim
        self.num_key_value_groups = 1
        self.scaling = config.attention_scales[layer_idx]

    def forward(self, query, key, value, scale, padding=None, cache=None, **kwargs):
        if scale is not None and scale != self.scaling:
            raise ValueError(f"attention {self.layer_idx}: scale {scale} differs from the "
                             f"{self.scaling} the model was exported with")
        if cache is not None:
            key, value = cache.update(key, value, self.layer_idx)
        implementation = self.config._attn_implementation
        mask = None
        if implementation in (None, "eager"):
            mask = causal_mask(query, key, padding)
        attend = ALL_ATTENTION_FUNCTIONS.get_interface(implementation, eager_attention)
        out, _ = attend(self, query, key, value, mask, scaling=self.scaling, dropout=0.0,
                        **kwargs)
        # eager gives [b n H Dh]; vLLM's [b*n H*Dh]: both back to the source's [b H n Dh].
        b, n = query.shape[0], query.shape[2]
        return out.reshape(b, n, -1, self.head_dim).transpose(1, 2)


class ShapeScriptCall:
    """One call of the model, as the compiled source sees it (`attn`): it runs the
    attentions in order, with the cache and the arguments transformers gave."""

    def __init__(self, model, padding, cache, kwargs, embeds=None):
        self.model = model
        self.padding = padding
        self.cache = cache
        self.kwargs = kwargs
        self.embeds = embeds
        self.layer = 0
        self.dtype = ''' + dtype_expr.replace("model.", "model.", 1) + '''

    def embed(self, ids):
        """The embedding of the token ids, or the vectors an engine looked up itself."""
        return self.model.embed_tokens(ids) if self.embeds is None else self.embeds

    def attention(self, query, key, value, scale):
        layer = self.model.attentions[self.layer]
        self.layer += 1
        return layer(query, key, value, scale, self.padding, self.cache, **self.kwargs)

    def in_model_dtype(self, x):
        """What the source computed in f32 on purpose, back in the model's dtype."""
        return x.to(self.dtype) if x.is_floating_point() else x


class ShapeScriptPreTrainedModel(PreTrainedModel):
    config_class = ShapeScriptConfig
    base_model_prefix = "model"
    _no_split_modules = []
    _supports_attention_backend = True

    def _init_weights(self, module):
        # New weights (from_config); from_pretrained loads every one from the file.
        for name, p in module.named_parameters(recurse=False):
            if p.is_floating_point():
                if p.dim() >= 2:
                    nn.init.normal_(p, std=0.02)
                else:
                    nn.init.ones_(p) if "norm" in name else nn.init.zeros_(p)
''')
    # ShapeScriptModel
    model_doc = ("The model up to the output layer: its forward gives the hidden states "
                 "the output layer takes." if split else
                 f"The model: its forward is `{fn}`, compiled, and takes the function's other "
                 "parameters, by position or by name.")
    out.append(f'''

class ShapeScriptModel(ShapeScriptPreTrainedModel):
    """{model_doc}"""

    def __init__(self, config):
        super().__init__(config)
{embed_init}{fields_code}
{attn_init}        self.post_init()
''')
    if split:
        pos_arg = ", position_ids" if plan.form.pos else ""
        out.append(f'''
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
''')
    else:
        params = ", ".join(_param_text(p) for p in src.params)
        out.append(f'''
    def forward(self, {params + ", " if params else ""}**kwargs):
        """`{fn}(m, {", ".join(inputs)})`: what the function gives."""
        attn = ShapeScriptCall(self, None, None, {{}})
        return {compiled}(attn, self, {", ".join(f"{p}={p}" for p in inputs)})
''')
    if lm:
        out.append(_causal_lm(plan))
    return "".join(out)


def _param_text(p: Any) -> str:
    """A parameter with its default, which is a host number or bool (E1705)."""
    if p.default is None:
        return p.name
    return f"{p.name}={_literal(p.default)!r}"


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
        call = pos_line + f'''        logits = self.model(input_ids{", position_ids" if pos else ""})
        past = None'''
        head = ""
        emb = ""
    return f'''

class ShapeScriptForCausalLM(ShapeScriptPreTrainedModel, GenerationMixin):
    """The language model: the model and its output layer, for `generate`."""

    _tied_weights_keys = {tied_keys}

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
