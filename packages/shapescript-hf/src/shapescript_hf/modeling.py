"""The text of ``modeling_shapescript.py``: the compiled forward function, the runtime
helpers it uses, and the transformers classes around it (``classes.py``).

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
from dataclasses import dataclass
from typing import Any

from shapescript.api import vocab

from shapescript_hf.classes import classes_source
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
    # The repeats of keys and values to the query heads, which the attention does.
    repeats = {id(r) for rs in form.grouped.values() for r in rs} if servable else set()
    # A model that breaks a rule runs its own attentions, padded keys hidden from them.
    masked = ({id(c) for c in form.key_attentions}
              if not servable and plan.language_model and form.padding_refusal is None
              else set())

    def calls(site: Any) -> str | None:
        node = site.node
        if split and node is form.embed_call:
            return f"attn.embed({site.arg(0)})"
        if split and node is form.output_call:
            return site.arg(0)
        if id(node) in repeats:
            return site.expr(node.args[0].value)
        if id(node) in attentions:
            scale = site.kwarg("scale") or "None"
            window = form.windows.get(id(node))
            more = f", {window}" if window is not None else ""
            return f"attn.attention({site.arg(0)}, {site.arg(1)}, {site.arg(2)}, {scale}{more})"
        if id(node) in masked:
            scale = site.kwarg("scale") or "None"
            mask = site.kwarg("attn_mask") or (site.arg(3) if site.nargs > 3 else "None")
            return (f"attn.masked_attention({site.arg(0)}, {site.arg(1)}, {site.arg(2)}, "
                    f"{mask}, {scale})")
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
    own = _defined(head + classes_source(plan, fields, dtype_expr, inputs, lm, src.fn))
    compiled = compiled_functions(plan, own)
    body = ("# " + "-" * 78 + f"\n# The source, compiled: `{src.fn}` and the functions it "
            "calls.\n\n" + compiled.source)
    classes = classes_source(plan, fields, dtype_expr, inputs, lm, compiled.names[src.fn])
    return head + body + "\n\n" + classes
