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

import functools
import os
import re
from dataclasses import dataclass, replace
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
        if type(node).__name__ in ("BinOp", "UnaryOp"):
            operands: tuple[Any, ...] = (getattr(node, "left", None), getattr(node, "right", None),
                                         getattr(node, "operand", None))
            if any(type(x).__name__ == "Name" and x.id in typed for x in operands):
                return True
        kind = type(node).__name__
        if kind == "Convert" and getattr(node.target, "dtype", None) in FLOAT_DTYPES:
            return True
        if kind == "Constructor" and getattr(node, "dtype", None) in FLOAT_DTYPES:
            return True
    return False


def _defaulted_float_return(sig: Any) -> bool:
    ret: Any = getattr(sig.decl, "ret", None)
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


@functools.lru_cache(maxsize=1)
def model_attributes() -> frozenset[str]:
    """The names ``ShapeScriptModel`` holds itself: ``nn.Module``'s, ``PreTrainedModel``'s
    and ``GenerationMixin``'s (``config``, ``device``, ``dtype`` …), the ones transformers
    sets on each instance, and the classes' own."""
    import torch
    import transformers
    from transformers import GenerationMixin, PretrainedConfig, PreTrainedModel

    class _ProbeConfig(PretrainedConfig):
        model_type = "shapescript_probe"

    class _Probe(PreTrainedModel):
        config_class = _ProbeConfig

    names = set(dir(torch.nn.Module)) | set(dir(PreTrainedModel)) | set(dir(GenerationMixin))
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    try:
        names |= set(vars(_Probe(_ProbeConfig())))
    finally:
        transformers.logging.set_verbosity(verbosity)
    return frozenset(names | {"embed_tokens", "attentions", "model", "lm_head"})


def field_names(plan: Plan) -> dict[str, str]:
    """Each field's attribute on ``ShapeScriptModel``, which is its weight's key in the
    folder (``model.<name>``): its own name, but for one the model holds itself or Python
    can't write after a dot, which gets a ``_`` (``config`` → ``config_``). transformers
    finds a weight by its attribute, so the key follows; a checkpoint ``--weights``
    reads keeps the source's names."""
    from shapescript import api

    fields = list(plan.source.fields)
    taken = model_attributes() | set(fields)
    out: dict[str, str] = {}
    for name in fields:
        attr = api.python_name(name)
        if attr != name or name in model_attributes():
            while attr in taken or attr in out.values():
                attr += "_"
        out[name] = attr
    return out


def _source_names(plan: Plan) -> set[str]:
    """Every name the program's functions use (their locals, parameters, calls)."""
    out: set[str] = set()
    for module in plan.source.program.modules.values():
        for decl in module.env.module.decls:
            for node in walk(decl):
                for attr in ("id", "name"):
                    v = getattr(node, attr, None)
                    if isinstance(v, str):
                        out.add(v)
    return out


def context_name(plan: Plan) -> str:
    """The name the compiled functions take their ``ShapeScriptCall`` by: ``attn``,
    unless the source uses that name (then ``attn_2`` …)."""
    from shapescript import api

    used = {api.python_name(n) for n in _source_names(plan)}
    name, k = "attn", 2
    while name in used:
        name, k = f"attn_{k}", k + 1
    return name


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
    ctx = context_name(plan)
    names = field_names(plan)

    def fields(obj: str, name: str) -> str:
        return api.py_attribute(obj, names.get(name, name))

    def calls(site: Any) -> str | None:
        node = site.node
        if split and node is form.embed_call:
            return f"{ctx}.embed({site.arg(0)})"
        if split and node is form.output_call:
            return site.arg(0)
        if id(node) in repeats:
            return site.expr(node.args[0].value)
        if id(node) in attentions:
            scale = site.kwarg("scale") or "None"
            window = form.windows.get(id(node))
            more = f", {window}" if window is not None else ""
            return f"{ctx}.attention({site.arg(0)}, {site.arg(1)}, {site.arg(2)}, {scale}{more})"
        if id(node) in masked:
            scale = site.kwarg("scale") or "None"
            mask = site.kwarg("attn_mask") or (site.arg(3) if site.nargs > 3 else "None")
            return (f"{ctx}.masked_attention({site.arg(0)}, {site.arg(1)}, {site.arg(2)}, "
                    f"{mask}, {scale})")
        return None

    def returns(sig: Any, code: str) -> str:
        if _defaulted_float_return(sig) and _computes_in_f32(sig):
            return f"{ctx}.in_model_dtype({code})"
        return code

    indexed = None
    if plan.layered:
        calls = _layered_calls(plan, ctx, calls)
        indexed = _layered_fields(plan)
    return api.generate_functions(plan.source.program, plan.source.fn, context=ctx,
                                  calls=calls, returns=returns, reserved=reserved,
                                  fields=fields, indexed_fields=indexed)


def _layer_field(site: Any, node: Any, paths: dict[str, tuple[str, str]]) -> str | None:
    """The field ``F`` of ``m.F[l]`` when the layers hold it, or None."""
    if type(node).__name__ != "Index" or type(node.value).__name__ != "Attr":
        return None
    res = site.gen.cm.res.get(node.value)
    name = getattr(res, "name", None) if type(res).__name__ == "FieldName" else None
    return name if name in paths else None


def _layered_calls(plan: Plan, ctx: str, inner: Any) -> Any:
    """The ``calls`` hook of the layered layout, around ``inner``: the loop's block is
    the layer's module, a layer's ``linear`` its ``nn.Linear``, the norm before the
    output layer the model's ``norm``, and the reshape of a projection to heads takes
    ``-1`` heads (a rank of a tensor-parallel group has its share of them)."""
    from shapescript import api

    lay = plan.layout
    form = plan.form
    heads = {s.dim for s in lay.splits if s.what.endswith("heads")}

    def calls(site: Any) -> str | None:
        node = site.node
        if node is lay.loop_call:
            args = [site.arg(i) for i in range(len(lay.block_params))]
            model, _, index = lay.block_args
            rest = [args[i] for i in _layer_args(lay)]
            return f"{args[model]}.layers[{args[index]}]({', '.join(rest + [ctx])})"
        if site.target == "torch.nn.functional.linear":
            w = _arg_node(site.res, "weight")
            name = _layer_field(site, w, lay.paths)
            if name is not None and lay.paths[name][0] in lay.linears:
                obj = site.expr(w.value.value)
                return f"{obj}.{lay.paths[name][0]}({site.arg(0)})"
        if site.target in ("shapescript.rt.rms_norm", "shapescript.rt.layer_norm"):
            out = _layer_norm_call(site, lay)
            if out is not None:
                return out
        if lay.final_norm is not None and node is form.output_input:
            obj = site.expr(_arg_node(site.res, "weight").value)
            return f"{obj}.norm({site.arg(0)})"
        if site.target == "rearrange" and heads:
            data = site.res.data  # the checker's pattern payload (pattern, kwargs, …)
            pattern = getattr(data, "pattern", None)
            lhs = pattern.partition("->")[0] if isinstance(pattern, str) else ""
            groups = re.findall(r"\(([^()]*)\)", lhs)
            if any(set(g.split()) & heads for g in groups):
                # Without the heads' size einops takes it from the rest: `-1` heads.
                kwargs = tuple((k, v) for k, v in data.kwargs if k not in heads)
                out = api.torch_views(site.gen, "rearrange", node, replace(data, kwargs=kwargs))
                if out is not None:
                    return out
        return inner(site)

    return calls


def _layer_norm_call(site: Any, lay: Any) -> str | None:
    """A layer's norm over the last axis as its ``ShapeScriptNorm`` (which computes the
    same), so that the layer traces without a branch on a rank and an engine finds the
    norm as a module; None for any other norm."""
    try:
        w = _arg_node(site.res, "weight")
    except StopIteration:
        return None
    name = _layer_field(site, w, lay.paths)
    if name is None or lay.paths[name][0] not in lay.norms:
        return None
    path = lay.paths[name][0]
    bias_ok = True
    try:
        b = _arg_node(site.res, "bias")
        bias_ok = _layer_field(site, b, lay.paths) is not None
    except (StopIteration, ValueError):
        pass
    t = site.gen.cm.types.get(_arg_node(site.res, "x"))
    axes = getattr(t, "axes", None)
    over = site.kwarg("over") or (site.arg(1) if site.nargs > 1 else None)
    if not bias_ok or axes is None or over != str(len(axes) - 1):
        return None
    return f"{site.expr(w.value.value)}.{path}({site.arg(0)})"


def _arg_node(res: Any, param: str) -> Any:
    """The node of an extern call's argument ``param``, by position or by name."""
    names = [p.name for p in res.sig.params]
    i = names.index(param)
    if i < len(res.args):
        return res.args[i].node
    return next(v.node for k, v in res.kwargs if k == param)


def _layer_args(lay: Any) -> list[int]:
    """The block's parameters a layer's forward takes, in order: the carried states
    first (an engine's stand-in for a layer another stage runs gives them back), then
    the others but the model and the index."""
    model, carried, index = lay.block_args
    return [carried] + [i for i in range(len(lay.block_params))
                        if i not in (model, carried, index)]


def _layered_fields(plan: Plan) -> Any:
    """The ``indexed_fields`` hook: ``m.F[l]`` in the block is the layer's own weight."""
    paths = plan.layout.paths

    def indexed(obj: str, name: str, index: str) -> str | None:
        if name not in paths:
            return None
        path, attr = paths[name]
        return f"{obj}.{path}.{attr}" if path else f"{obj}.{attr}"

    return indexed


def _field_lines(plan: Plan) -> list[str]:
    from shapescript import api

    lines = []
    names = field_names(plan)
    layered = plan.layout.paths if plan.layered else {}
    final = plan.layout.final_norm if plan.layered else None
    for name, (shape, dtype) in plan.source.fields.items():
        if name in plan.engine_fields or name in layered or name == final:
            continue
        decl = plan.written_types.get(name, "")
        dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
        dt = "" if dtype == "f32" else f", dtype=torch.{_TORCH.get(dtype, 'float32')}"
        grad = "" if dtype in FLOAT_DTYPES else ", requires_grad=False"
        lines.append(f"self.{names[name]} = nn.Parameter(torch.empty(({dims}){dt}){grad})"
                     "  " + api.py_comment(decl))
    return lines


def _input_names(plan: Plan, own: set[str]) -> list[str]:
    """The Python names of the forward's inputs: as the function's, but for one the
    forward's own code takes (``self``, ``kwargs``, the file's names)."""
    from shapescript import api

    out: list[str] = []
    for p in plan.source.params:
        name = api.python_name(p.name)
        while name in own or name in ("self", "kwargs") or name in out:
            name += "_"
        out.append(name)
    return out


_IMPORTS = """
import torch
from torch import nn
from transformers import GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.cache_utils import DynamicCache
from transformers.modeling_outputs import BaseModelOutputWithPast, CausalLMOutputWithPast
from transformers.modeling_utils import ALL_ATTENTION_FUNCTIONS

"""


def modeling_source(plan: Plan) -> str:
    """The whole of ``modeling_shapescript.py``."""
    from shapescript import api

    src = plan.source
    base = os.path.basename(src.path)
    fields = _field_lines(plan)
    first_float = next((n for n, (_, dt) in src.fields.items()
                        if dt in FLOAT_DTYPES and n not in plan.engine_fields
                        and not (plan.layered and (n in plan.layout.paths
                                                   or n == plan.layout.final_norm))), None)
    dtype_expr = (f"model.{field_names(plan)[first_float]}.dtype" if first_float is not None
                  else "model.embed_tokens.weight.dtype" if plan.split else "torch.float32")
    if plan.layered and first_float is None:
        # An engine's pipeline stage may hold neither the embedding nor a given layer.
        dtype_expr = "model.dtype"
    lm = plan.language_model
    inputs = [api.python_name(p.name) for p in src.params]
    split_doc = (", but for the engine's parts: the embedding table is `embed_tokens.weight` "
                 "and the output layer `lm_head.weight` of `ShapeScriptForCausalLM`"
                 if plan.split else "")
    # The file's name is any text: it reaches the file only as a comment and a literal.
    head = (api.py_comment(f"Generated by `shapescript export --hf` from {base} (function "
                           f"`{src.fn}`):") + "\n"
            + "# edit that file and export again rather than editing this one.\n"
            + api.py_docstring(f"`{src.fn}` of {base}, compiled, as a transformers model "
                             "(trust_remote_code=True).\n\nIt needs torch, einops and "
                             "transformers. The model's fields are the parameters of\n"
                             f"`ShapeScriptModel`, under their own names{split_doc}.\n")
            + "\n" + _IMPORTS)
    # The source's functions take no name the file's own code has.
    own = _defined(head + classes_source(plan, fields, dtype_expr, inputs, lm,
                                         api.python_name(src.fn)))
    block = None
    compiled = compiled_functions(plan, own)
    body = ("# " + "-" * 78 + "\n" + api.py_comment(f"The source, compiled: `{src.fn}` and "
                                                    "the functions it calls.")
            + "\n\n" + compiled.source)
    if plan.layered:
        block = compiled.names[plan.layout.block_key]
    classes = classes_source(plan, fields, dtype_expr, _input_names(plan, own), lm,
                             compiled.names[src.fn], block or "block")
    return head + body + "\n\n" + classes
