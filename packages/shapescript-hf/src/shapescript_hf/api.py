"""``export_hf``: a model's forward function to a Hugging Face folder.

The folder holds ``config.json``, ``model.safetensors``, ``modeling_shapescript.py`` and,
for a language model, ``generation_config.json`` (and the tokenizer's files with
``tokenizer=``). It is built beside ``output`` and moved into place once written and
verified, so it appears complete or not at all.
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

from shapescript_export.model_export import (
    ModelExportError, cast_fields, check_finite, count_attentions, example_inputs,
    load_model_source, make_weights, torch_dtype,
)

from shapescript_hf.modeling import field_names, modeling_source
from shapescript_hf.plan import Plan, make_plan

__all__ = ["HFExportError", "export_hf"]

# A tokenizer folder's files that transformers reads.
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                   "vocab.json", "merges.txt", "added_tokens.json", "tokenizer.model",
                   "chat_template.jinja")


class HFExportError(ValueError):
    """The written folder doesn't give what the source gives (exit code 1)."""


def export_hf(path: str, output: str, *, fn: str = "forward", weights: Any = None, seed: int = 0,
              dtype: str = "float32", tokenizer: str | None = None, max_len: int | None = None,
              verify: bool = True, vllm: bool = False,
              notes: list[str] | None = None, allow_nonfinite: bool = False,
              layout: str | None = None) -> dict[str, Any]:
    """Writes the model of ``fn`` in the ShapeScript file ``path`` as a Hugging Face folder
    ``output`` and returns its ``config.json`` as a dict.

    ``weights``: a checkpoint path (its first model of the function's type) or a model
    value; without, new weights from ``seed`` as ``M.init(seed=…)`` makes them. ``dtype``:
    ``float32``, ``bfloat16`` or ``float16``. ``tokenizer``: a Hugging Face tokenizer
    folder to copy. ``max_len``: ``max_position_embeddings`` (default: P of the
    positions' ``Index[P]``, or 4096). ``verify``: load the folder with transformers and
    compare with the source. ``vllm``: the serving rules are errors, and nothing is
    written when one is broken. ``notes`` collects what the export says about it (why an
    engine can't serve it). ``allow_nonfinite``: write weights that are NaN or infinite
    (in the checkpoint or in ``dtype``), which are otherwise a ``ModelExportError``.
    ``layout``: ``"layered"`` (each layer a module of ``nn.Linear``s that engines shard
    and stage; a ``ModelExportError`` where the model's layers aren't one loop over a
    block), ``"stacked"`` (the fields as declared) or None (layered where it fits). The
    degrees of tensor and pipeline parallelism the folder allows are in ``config.json``
    under ``"shapescript"`` (and in ``notes``).

    Raises ``ShapeScriptError`` for a program with errors (or a broken serving rule with
    ``vllm``), ``ModelExportError`` for bad options or weights, ``HFExportError`` when the
    folder doesn't verify, ``WriteError`` (an ``OSError``) naming ``output`` when it can't
    be written.

    >>> config = export_hf("llama.ss", "llama_hf", weights="llama.safetensors")  # doctest: +SKIP
    >>> config["shapescript"]["vllm"]                                          # doctest: +SKIP
    True
    """
    from shapescript import api

    target_dtype = torch_dtype(dtype)
    _check_options(max_len, tokenizer)
    source = load_model_source(path, fn)
    plan = _plan(source, layout)
    bound = plan.form.positions
    if max_len is not None and bound is not None and max_len > bound:
        raise ModelExportError(f"--max-len {max_len} is more than the {bound} positions "
                               f"`{plan.form.pos}: [b n] Index[{bound}]` allows")
    if vllm and plan.notes:
        errors = api.serving_diagnostics(source.program, source.fn, as_errors=True)
        raise api.shapescript_error(errors, source.program.sources)
    if plan.notes and notes is not None:
        notes.append(f"`{source.fn}` is exported for transformers only: an engine can't serve "
                     f"it ({plan.unservable_reason()})")
    model = make_weights(source, weights=weights, seed=seed, allow_nonfinite=allow_nonfinite)
    args = example_inputs(source)
    want, calls = _reference_run(source, model, args)
    config = _config(plan, calls, dtype, max_len)
    if notes is not None and plan.language_model and plan.servable:
        notes.append(_degrees_note(config["shapescript"]))
    config.update(_windows(plan, calls))
    tensors = _tensors(plan, model, dtype, allow_nonfinite)
    try:
        modeling = modeling_source(plan)
    except ValueError as err:  # what the modeling file can't hold yet
        raise HFExportError(str(err)) from None

    def fill(folder: str) -> None:
        _write_folder(folder, config, plan, tensors, modeling, tokenizer)
        if verify:
            verify_folder(folder, plan, args, want, target_dtype)

    api.atomic_dir(output, fill)
    return config


def _check_options(max_len: int | None, tokenizer: str | None) -> None:
    """The options that are wrong before anything runs."""
    if max_len is not None and (isinstance(max_len, bool) or not isinstance(max_len, int)
                                or max_len < 1):
        raise ModelExportError(f"--max-len must be a whole number of at least 1, not {max_len!r}")
    if tokenizer is not None:
        _tokenizer_files(tokenizer)


def _reference_run(source: Any, model: Any, args: list[Any]) -> tuple[Any, Any]:
    """The source's own outputs on ``args`` (what the folder must reproduce) and its
    attention calls; the program's run-time error is the export's."""
    try:
        return source.run(model, *args), count_attentions(source, model, args)
    except Exception as err:  # the program's own run-time error, on example arguments
        shapes = ", ".join(str(tuple(a.shape)) for a in args)
        raise HFExportError(f"`{source.fn}` fails on example arguments of shapes {shapes}: "
                            f"{type(err).__name__}: {err}") from err


def _write_folder(folder: str, config: dict[str, Any], plan: Plan, tensors: dict[str, Any],
                  modeling: str, tokenizer: str | None) -> None:
    """The folder's files: config, generation config, weights, modeling file, tokenizer."""
    from safetensors.torch import save_file

    _write_json(os.path.join(folder, "config.json"), config)
    if plan.language_model:
        _write_json(os.path.join(folder, "generation_config.json"), _generation(config))
    save_file(tensors, os.path.join(folder, "model.safetensors"), metadata={"format": "pt"})
    with open(os.path.join(folder, "modeling_shapescript.py"), "w", encoding="utf-8") as f:
        f.write(modeling)
    if tokenizer is not None:
        for name in _tokenizer_files(tokenizer):
            shutil.copyfile(os.path.join(tokenizer, name), os.path.join(folder, name))


def _plan(source: Any, layout: str | None) -> Plan:
    """The export's plan in ``layout`` (None: layered where it fits)."""
    if layout not in (None, "layered", "stacked"):
        raise ModelExportError(f"--layout must be layered or stacked, not {layout!r}")
    plan = make_plan(source, layered=layout != "stacked")
    if layout == "layered" and not plan.layered:
        raise ModelExportError(f"--layout layered: `{source.fn}`'s layers can't be modules: "
                               f"{plan.layout.reason}")
    return plan


def _tokenizer_files(folder: str) -> list[str]:
    if not os.path.isdir(folder):
        raise ModelExportError(f"--tokenizer {folder}: not a folder")
    names = [n for n in TOKENIZER_FILES if os.path.isfile(os.path.join(folder, n))]
    if not any(n in names for n in ("tokenizer.json", "tokenizer.model", "vocab.json")):
        raise ModelExportError(f"--tokenizer {folder}: no tokenizer.json, vocab.json or "
                               "tokenizer.model in it")
    return names


def _write_json(path: str, data: dict[str, Any]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


def _config(plan: Plan, calls: list[Any], dtype: str, max_len: int | None) -> dict[str, Any]:
    from shapescript_export import __version__ as export_version

    src, form = plan.source, plan.form
    lm = plan.language_model
    auto = {"AutoConfig": "modeling_shapescript.ShapeScriptConfig",
            "AutoModel": "modeling_shapescript.ShapeScriptModel"}
    if lm:
        auto["AutoModelForCausalLM"] = "modeling_shapescript.ShapeScriptForCausalLM"
    hidden = None
    if plan.split:
        hidden = src.fields[form.embed_field][0][1]
    heads = head_dim = None
    if calls:
        heads, head_dim = calls[0].query[1], calls[0].query[3]
    positions = max_len or form.positions or 4096
    reason = plan.unservable_reason()
    meta: dict[str, Any] = {"source": os.path.basename(src.path), "fn": src.fn,
                            "vllm": plan.servable and lm}
    if not meta["vllm"]:
        meta["unservable"] = reason or f"`{src.fn}` isn't a language model's forward function"
    meta["exporter"] = f"shapescript-hf {export_version}"
    meta.update(parallel(plan))
    return {
        "architectures": ["ShapeScriptForCausalLM" if lm else "ShapeScriptModel"],
        "auto_map": auto,
        "model_type": "shapescript",
        "vocab_size": form.vocab.const_value if lm and form.vocab is not None else None,
        "hidden_size": hidden,
        "num_hidden_layers": len(calls),
        "num_attention_heads": heads,
        # The source's key heads where the engine's attention repeats them (a plain
        # grouping the serving rules found); otherwise they reach attention at H heads.
        "num_key_value_heads": form.kv_heads if plan.servable and form.kv_heads else heads,
        "head_dim": head_dim,
        "max_position_embeddings": positions,
        "attention_scales": [c.effective_scale for c in calls],
        "tie_word_embeddings": bool(plan.split and form.tied),
        # The cache is what the serving rules make valid; false gives the cache-less
        # path, where each step of generate computes from the start.
        "use_cache": bool(plan.servable and plan.split),
        "dtype": dtype,
        "bos_token_id": None,
        "eos_token_id": None,
        "pad_token_id": None,
        "shapescript": meta,
    }


def parallel(plan: Plan) -> dict[str, Any]:
    """The folder's layout and the degrees of parallelism it allows, proven from the
    source's sizes (``layers.py``): ``config.json``'s ``"shapescript"`` holds them."""
    lay = plan.layout
    if not plan.layered:
        out: dict[str, Any] = {"layout": "stacked", "tensor_parallel": [1],
                               "pipeline_parallel": [1]}
        if lay is not None and lay.reason is not None:
            out["why_stacked"] = lay.reason
        return out
    return {"layout": "layered", "tensor_parallel": lay.tp_degrees(_split_vocab(plan)),
            "pipeline_parallel": lay.pp_degrees()}


def _degrees_note(meta: dict[str, Any]) -> str:
    """What the export prints of the degrees it proved."""
    tp = ", ".join(str(d) for d in meta["tensor_parallel"])
    pp = ", ".join(str(d) for d in meta["pipeline_parallel"])
    why = f": {meta['why_stacked']}" if "why_stacked" in meta else ""
    return f"tensor-parallel degrees {tp}, pipeline degrees {pp} ({meta['layout']} layout{why})"


def _split_vocab(plan: Plan) -> int | None:
    """V where the output layer splits along it (not where it is the embedding's)."""
    form = plan.form
    if form.tied or form.vocab is None:
        return None
    return form.vocab.const_value


def _windows(plan: Plan, calls: list[Any]) -> dict[str, Any]:
    """``sliding_window`` and ``layer_types`` when an attention the engine runs has a
    window: each layer's type from the source's attention call that ran it."""
    form = plan.form
    if not plan.servable or not any(w is not None for w in form.windows.values()):
        return {}
    at: dict[tuple[str, int], set[int | None]] = {}
    for call in form.attentions:
        span = call.span
        at.setdefault((os.path.abspath(span.file), span.line), set()).add(
            form.windows.get(id(call)))
    types = []
    for c in calls:
        windows = at.get(c.site) if c.site is not None else None
        if windows is None or len(windows) != 1:
            raise HFExportError("the attention calls of one line have different windows: "
                                "write each on its own line")
        types.append("full_attention" if next(iter(windows)) is None else "sliding_attention")
    window = next(w for w in form.windows.values() if w is not None)
    return {"sliding_window": window, "layer_types": types}


def _generation(config: dict[str, Any]) -> dict[str, Any]:
    return {"use_cache": config["use_cache"], "bos_token_id": None, "eos_token_id": None,
            "pad_token_id": None}


def _tensors(plan: Plan, model: Any, dtype: str, allow_nonfinite: bool) -> dict[str, Any]:
    fields = cast_fields(model, dtype)
    if not allow_nonfinite and dtype != "float32":  # finite in f32 can overflow in f16
        check_finite(fields, dtype=dtype)
    out = {}
    form = plan.form
    names = field_names(plan)
    lay = plan.layout if plan.layered else None
    for name, t in fields.items():
        if lay is not None and name in lay.paths:
            # Layer l's slice of a stacked field, under its module's name.
            path, attr = lay.paths[name]
            where = f"{path}.{attr}" if path else attr
            for layer in range(t.shape[0]):
                out[f"model.layers.{layer}.{where}"] = t[layer].clone()
            continue
        if lay is not None and name == lay.final_norm:
            out["model.norm.weight"] = t
            continue
        if plan.split and name == form.embed_field:
            out["model.embed_tokens.weight"] = t
            if form.tied:
                continue
        if plan.split and name == form.output_field:
            if not form.tied:
                out["lm_head.weight"] = t
            continue
        if plan.split and name == form.embed_field:
            continue
        out[f"model.{names[name]}"] = t
    return out


def verify_folder(folder: str, plan: Plan, args: list[Any], want: Any, dtype: Any) -> None:
    """Load ``folder`` with transformers and compare its output with ``want`` (the
    source's): to 1e-4 of the output's size in float32, 5e-2 in the other dtypes."""
    import torch
    import transformers
    from transformers import AutoModel, AutoModelForCausalLM

    cls = AutoModelForCausalLM if plan.language_model else AutoModel
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    try:
        model = cls.from_pretrained(folder, trust_remote_code=True, dtype=dtype)
    finally:
        transformers.logging.set_verbosity(verbosity)
        transformers.utils.logging.enable_progress_bar()
    model.eval()
    with torch.no_grad():
        if plan.language_model:
            kwargs = {"input_ids": args[0]}
            if plan.form.pos is not None:
                kwargs["position_ids"] = args[1]
            got = model(**kwargs, use_cache=False).logits
        else:
            got = model(*args)
    _compare(got, want, dtype, plan.source.fn)


def _compare(got: Any, want: Any, dtype: Any, fn: str) -> None:
    import torch

    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(want):
            raise HFExportError(f"verification failed: the folder's model doesn't give "
                                f"{len(want)} values as `{fn}` does")
        for g, w in zip(got, want):
            _compare(g, w, dtype, fn)
        return
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape):
        shape = tuple(got.shape) if isinstance(got, torch.Tensor) else type(got).__name__
        raise HFExportError(f"verification failed: the folder's model gives {shape}, "
                            f"`{fn}` gives {tuple(want.shape)}")
    if not want.is_floating_point():
        if not torch.equal(got.to(want.dtype), want):
            raise HFExportError(f"verification failed: the folder's model gives other values "
                                f"than `{fn}`")
        return
    rel = 1e-4 if dtype == torch.float32 else 5e-2
    size = want.detach().abs().max().item() if want.numel() else 0.0
    err = (got.detach().to(torch.float64) - want.detach().to(torch.float64)).abs().max().item() \
        if want.numel() else 0.0
    if not err <= rel * max(size, 1e-12):
        raise HFExportError(f"verification failed: the folder's model differs from `{fn}` by "
                            f"{err:.3g}, more than {rel:g} of the output's size {size:.3g}")
