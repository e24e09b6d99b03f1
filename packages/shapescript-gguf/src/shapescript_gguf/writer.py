"""Writing the GGUF file: the architecture's keys, the tensors by their GGUF names, and a
tokenizer, with the ``gguf`` package (llama.cpp's own writer).

Matrices are written in the export's dtype, 1-D tensors (norms, biases) in f32, as
llama.cpp expects. The vocabulary is a byte-level BPE tokenizer read from a Hugging Face
``tokenizer.json``, or, without one, placeholder tokens ``<|N|>`` that llama.cpp accepts
and that tokenize to their ids.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from shapescript_gguf.arch import ARCHITECTURES, accessor
from shapescript_gguf.errors import CommandError
from shapescript_gguf.search import Match
from shapescript_gguf.targets import SOFTCAP_OFF

__all__ = ["Vocabulary", "placeholder_vocabulary", "read_tokenizer", "write_gguf"]

@dataclass
class Vocabulary:
    """The tokenizer metadata a GGUF file holds (llama.cpp's ``gpt2`` tokenizer model:
    byte-level BPE)."""

    tokens: list[str]
    types: list[int]          # gguf.TokenType values
    merges: list[str]         # "a b", in rank order
    pre: str                  # tokenizer.ggml.pre
    bos: int
    eos: int


def placeholder_vocabulary(size: int) -> Vocabulary:
    """Tokens ``<|0|>`` … ``<|size-1|>``: user-defined tokens, so that llama.cpp's
    tokenizer turns the text ``<|3|><|17|>`` into ids 3 and 17 and back. llama.cpp needs
    at least one merge; this one merges nothing a prompt of such tokens contains."""
    import gguf

    return Vocabulary([f"<|{i}|>" for i in range(size)],
                      [int(gguf.TokenType.USER_DEFINED)] * size, ["< |"], "default", 0, 0)


def read_tokenizer(folder: str, size: int) -> Vocabulary:
    """The byte-level BPE tokenizer of a Hugging Face tokenizer folder (its
    ``tokenizer.json``, and ``tokenizer_config.json``'s ``bos_token``/``eos_token`` when
    present). Ids the tokenizer doesn't use, up to the model's vocabulary ``size``, get
    placeholder tokens. ValueError when it isn't one llama.cpp can read."""
    import gguf

    path = os.path.join(folder, "tokenizer.json")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as err:
        raise CommandError(f"--tokenizer {folder}: can't read tokenizer.json ({err.strerror})") \
            from None
    except json.JSONDecodeError as err:
        raise CommandError(f"--tokenizer {folder}: tokenizer.json isn't JSON ({err})") from None
    model = data.get("model") or {}
    if model.get("type") != "BPE" or not isinstance(model.get("vocab"), dict):
        raise CommandError(f"--tokenizer {folder}: tokenizer.json is a {model.get('type')!r} "
                         "tokenizer; a GGUF file can hold a byte-level BPE one (as GPT-2's)")
    if not _byte_level(data.get("pre_tokenizer")):
        raise CommandError(f"--tokenizer {folder}: tokenizer.json's BPE isn't byte-level "
                         "(its pre_tokenizer has no ByteLevel step)")
    by_id: dict[int, tuple[str, int]] = {}
    for token, i in model["vocab"].items():
        by_id[int(i)] = (token, int(gguf.TokenType.NORMAL))
    for added in data.get("added_tokens") or []:
        kind = gguf.TokenType.CONTROL if added.get("special") else gguf.TokenType.USER_DEFINED
        by_id[int(added["id"])] = (added["content"], int(kind))
    top = max(by_id) + 1 if by_id else 0
    if top > size:
        raise CommandError(f"--tokenizer {folder}: the tokenizer has ids up to {top - 1}, but "
                         f"the model's vocabulary is V = {size}")
    tokens, types = [], []
    for i in range(size):
        token, kind = by_id.get(i, (f"<|{i}|>", int(gguf.TokenType.USER_DEFINED)))
        tokens.append(token)
        types.append(kind)
    if len(set(tokens)) != len(tokens):
        raise CommandError(f"--tokenizer {folder}: tokenizer.json names one token twice")
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges") or []]
    if not merges:
        merges = ["< |"]  # llama.cpp needs the key, and gguf drops an empty list
    ids = {t: i for i, t in enumerate(tokens)}
    bos = eos = ids.get("<|endoftext|>", 0)
    config = os.path.join(folder, "tokenizer_config.json")
    if os.path.exists(config):
        with open(config, encoding="utf-8") as f:
            cfg = json.load(f)
        for key in ("bos_token", "eos_token"):
            value = cfg.get(key)
            if isinstance(value, dict):
                value = value.get("content")
            if isinstance(value, str) and value in ids:
                if key == "bos_token":
                    bos = ids[value]
                else:
                    eos = ids[value]
    return Vocabulary(tokens, types, merges, "gpt-2", bos, eos)


def _byte_level(pre: Any) -> bool:
    if not isinstance(pre, dict):
        return False
    if pre.get("type") == "ByteLevel":
        return True
    return any(_byte_level(p) for p in pre.get("pretokenizers") or [])


def _matrix(t: torch.Tensor, dtype: str) -> tuple[np.ndarray, Any]:
    """A matrix as the gguf writer takes it in ``dtype``: (array, raw dtype or None)."""
    import gguf

    if dtype == "float32":
        return t.to(torch.float32).numpy(), None
    if dtype == "float16":
        return t.to(torch.float16).numpy(), None
    # numpy has no bfloat16: the raw bytes, with their element type named.
    raw = t.to(torch.bfloat16).contiguous().view(torch.int16).numpy().view(np.uint8)
    return raw, gguf.GGMLQuantizationType.BF16


# llama.cpp special-cases a model whose general.name contains one of these: it sets
# attributes of tokens it expects in the vocabulary, and fails to load the file when they
# are missing. The name is only a label, so such a name is written with the trigger
# broken rather than the file made unloadable.
_NAME_TRIGGERS = {"phi-3": ("</s>", "<unk>", "<s>", "<|endoftext|>"),
                  "phi3": ("</s>", "<unk>", "<s>", "<|endoftext|>")}


def safe_name(name: str, vocab: Vocabulary) -> str:
    """``name`` as the file's general.name, changed only where llama.cpp would need tokens
    the vocabulary lacks because of it."""
    tokens = set(vocab.tokens)
    for trigger, needed in _NAME_TRIGGERS.items():
        if trigger in name.lower() and not tokens.issuperset(needed):
            start = name.lower().index(trigger)
            name = name[:start] + name[start:start + len(trigger)].replace(
                trigger[-1], "_" + trigger[-1]) + name[start + len(trigger):]
    return name


def _add_windows(w: Any, match: Match, context_length: int) -> None:
    """The layers' sliding windows: their size and which layers have one. A model with
    none gets a window as long as the context on no layer (gemma2 always runs them)."""
    windows = match.windows or (None,) * match.hparams["L"]
    size = next((x for x in windows if x is not None), context_length)
    w.add_sliding_window(size)
    w.add_sliding_window_pattern([x is not None for x in windows])


def _rewrites(match: Match) -> list[str]:
    """The rewrites the file's tensors and keys went through, in words
    (``shapescript.rewrites``)."""
    c = ARCHITECTURES[match.arch].computation
    rewrites = (match.variant.rewrites(c.positions == "rope_pairs")
                + [j.describe() for j in match.joins]
                + [f"{f} transposed" for f in sorted(match.pairing[k] for k in match.transposed)]
                + (["the output layer tied to the embedding"] if match.tied else []))
    if match.context_cap is not None:
        rewrites.append(f"a sliding window of {match.context_cap} positions, which "
                        f"llama.cpp's {match.arch} doesn't run: the context length capped at "
                        "it, within which it hides nothing")
    if c.softcap:
        rewrites.append(f"no soft-capping, written as soft-capping at {SOFTCAP_OFF:g}, which "
                        "moves no score or logit beyond f32's rounding")
    return rewrites


def write_gguf(path: str, match: Match, values: dict[str, torch.Tensor], *, dtype: str,
               vocab: Vocabulary, context_length: int, name: str) -> None:
    """Write the file at ``path`` (not atomically: the caller writes a temporary file)."""
    import gguf

    arch = ARCHITECTURES[match.arch]
    hp = match.hparams
    w = gguf.GGUFWriter(path, match.arch)
    w.add_type(gguf.GGUFType.MODEL)
    w.add_name(safe_name(name, vocab))
    w.add_context_length(context_length)
    w.add_embedding_length(hp["D"])
    w.add_block_count(hp["L"])
    w.add_feed_forward_length(hp["F"])
    w.add_head_count(hp["H"])
    w.add_head_count_kv(hp["KV"])
    w.add_key_length(hp["hd"])
    w.add_value_length(hp["hd"])
    c = arch.computation
    if c.positions != "learned":
        w.add_rope_dimension_count(match.variant.rot_dims or hp["hd"])
        base = float(match.variant.rope_base or 10000.0)
        w.add_rope_freq_base(base)
        if c.windows:  # gemma3's own default for the windowed layers is 10000
            w.add_rope_freq_base_swa(float(match.variant.rope_base_swa or base))
    if c.windows:
        _add_windows(w, match, context_length)
    if c.softcap:
        w.add_attn_logit_softcapping(SOFTCAP_OFF)
        w.add_final_logit_softcapping(SOFTCAP_OFF)
    if c.norm == "rms_norm":
        w.add_layer_norm_rms_eps(match.eps)
    else:
        w.add_layer_norm_eps(match.eps)
    if c.parallel:
        w.add_parallel_residual(match.variant.parallel)
    rewrites = _rewrites(match)
    if rewrites:
        w.add_array("shapescript.rewrites", rewrites)
    w.add_file_type({"float32": gguf.LlamaFileType.ALL_F32,
                     "float16": gguf.LlamaFileType.MOSTLY_F16,
                     "bfloat16": gguf.LlamaFileType.MOSTLY_BF16}[dtype])
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)
    w.add_vocab_size(len(vocab.tokens))
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(vocab.pre)
    w.add_token_list(vocab.tokens)
    w.add_token_types(vocab.types)
    w.add_token_merges(vocab.merges)
    w.add_bos_token_id(vocab.bos)
    w.add_eos_token_id(vocab.eos)
    w.add_add_bos_token(False)

    pairing = {k: (f, k in match.transposed) for k, f in match.pairing.items()}
    get = accessor(arch, {k: v.detach().to("cpu") for k, v in values.items()}, pairing,
                   False, match.variant, hp)
    # What the search computed is what is written: the same tensors, by the same accessor.
    for slot in arch.written_slots(frozenset(match.pairing)):
        layers = range(hp["L"]) if slot.per_block else [None]
        for layer in layers:
            t = get(slot.key, layer)
            assert t is not None, slot.key
            tensor_name = slot.gguf.format(layer) if layer is not None else slot.gguf
            if slot.vector:
                w.add_tensor(tensor_name, t.to(torch.float32).contiguous().numpy())
            else:
                array, raw = _matrix(t.contiguous(), dtype)
                w.add_tensor(tensor_name, array, raw_dtype=raw)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
