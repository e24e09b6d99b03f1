"""The architectures llama.cpp runs that a GGUF export can name: their tensors, with
shapes, and their computation written again in torch, as llama.cpp computes it.

Each architecture is a list of *slots*, one per kind of tensor, in the order llama.cpp's
forward pass first reads them. A slot is global (``token_embd.weight``) or per block
(``blk.N.attn_q.weight``); a model field fills a per-block slot with its layers stacked
along a leading axis. A slot's shape is written in the architecture's hyperparameters:
``V``, ``H``, ``hd`` and ``L`` are known before the search (the vocabulary, and the
heads, head width and count of the attentions the source runs); ``D``, ``F``, ``KV`` and
``n_ctx`` are read from the fields' shapes as they are paired.

``logits`` computes what llama.cpp computes, in the dtype of the tensors it is given
(the search gives it f64), from the tensors by slot.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F

__all__ = ["ARCHITECTURES", "ROPE_BASES", "Architecture", "Slot", "Variant", "permute_qk"]


@dataclass(frozen=True)
class Slot:
    """One kind of tensor: its GGUF name (``{}`` is the block number), whether each block
    has one, and its shape as expressions in the hyperparameters."""

    key: str
    gguf: str
    per_block: bool
    shape: tuple[str, ...]
    optional: bool = False  # llama.cpp runs without it (the output layer: tied)

    @property
    def vector(self) -> bool:
        """A 1-D tensor (a norm's weight, a bias), written in f32 whatever the dtype."""
        return len(self.shape) == 1


@dataclass(frozen=True)
class Variant:
    """The choices the search makes besides the pairing: the rotary base, and whether the
    query and key rows are reordered (rotary on halves rather than on neighbours)."""

    rope_base: float | None = None
    permute_qk: bool = False
    # Diagnosis only: the activation llama.cpp would need for the source's logits.
    activation: str | None = None

    def describe(self) -> str:
        parts = []
        if self.rope_base is not None:
            parts.append(f"rotary base {_number(self.rope_base)}")
        if self.permute_qk:
            parts.append("query and key rows reordered for rotary on halves")
        return ", ".join(parts)


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


# The rotary bases models commonly use: Llama 1/2 and most others, Llama 3, Code Llama /
# Mistral / Qwen2, then less common ones.
ROPE_BASES: tuple[float, ...] = (10000.0, 500000.0, 1000000.0, 100000.0, 50000.0, 5000000.0)


@dataclass(frozen=True)
class Architecture:
    """An architecture llama.cpp implements."""

    name: str
    norm: str                      # "rms_norm" or "layer_norm"
    slots: tuple[Slot, ...]
    variants: Callable[[], list[Variant]]
    logits: Callable[..., torch.Tensor]
    # Diagnosis: other activations (``Variant.activation``) whose agreement explains a
    # refusal, with the explanation.
    diagnoses: tuple[tuple[str, str], ...] = field(default=())


def permute_qk(w: torch.Tensor, heads: int) -> torch.Tensor:
    """Reorders each head's rows of a query or key projection ``[heads·hd, D]`` so that
    rotary on neighbouring pairs computes what rotary on halves computed: new row 2j is
    old row j, new row 2j+1 is old row j + hd/2 (what convert_hf_to_gguf.py does to
    Hugging Face's llama weights)."""
    rows = w.shape[0]
    return (w.reshape(heads, 2, rows // heads // 2, *w.shape[1:])
            .swapaxes(1, 2).reshape(w.shape))


# --------------------------------------------------------------------------- llama


def _rope_pairs(x: torch.Tensor, pos: torch.Tensor, base: float) -> torch.Tensor:
    """llama.cpp's rotary (GGML_ROPE_TYPE_NORMAL) on ``x: [n, heads, hd]``: each
    neighbouring pair (2i, 2i+1) turned by pos · base^(-2i/hd)."""
    hd = x.shape[-1]
    i = torch.arange(0, hd, 2, dtype=x.dtype, device=x.device)
    theta = pos.to(x.dtype)[:, None] * base ** (-i / hd)          # [n, hd/2]
    c, s = torch.cos(theta)[:, None, :], torch.sin(theta)[:, None, :]
    x0, x1 = x[..., 0::2], x[..., 1::2]
    out = torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1)
    return out.reshape(x.shape)


def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Causal attention of ``q: [n, H, hd]`` over ``k, v: [n, KV, hd]``, query head h
    reading key head h // (H/KV) (ggml's broadcast), scale 1/sqrt(hd): ``[n, H·hd]``."""
    n, heads, hd = q.shape
    group = heads // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = torch.einsum("qhd,khd->hqk", q, k) / math.sqrt(hd)
    mask = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
    scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.einsum("hqk,khd->qhd", scores.softmax(-1), v)
    return out.reshape(n, heads * hd)


def _rms(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def _act(name: str, x: torch.Tensor) -> torch.Tensor:
    if name == "silu":
        return F.silu(x)
    if name == "gelu_tanh":
        return F.gelu(x, approximate="tanh")
    return F.gelu(x)


def _llama_logits(t: Callable[[str, int | None], torch.Tensor], ids: torch.Tensor,
                  pos: torch.Tensor, hp: dict[str, int], eps: float,
                  variant: Variant) -> torch.Tensor:
    """One sequence ``ids: [n]`` at positions ``pos: [n]``: logits ``[n, V]``."""
    heads, kv, hd = hp["H"], hp["KV"], hp["hd"]
    act = variant.activation or "silu"
    base = variant.rope_base or 10000.0
    n = ids.shape[0]
    x = t("token_embd", None)[ids]
    for layer in range(hp["L"]):
        h = _rms(x, t("attn_norm", layer), eps)
        wq, wk = t("attn_q", layer), t("attn_k", layer)
        if variant.permute_qk:
            wq, wk = permute_qk(wq, heads), permute_qk(wk, kv)
        q = _rope_pairs((h @ wq.T).reshape(n, heads, hd), pos, base)
        k = _rope_pairs((h @ wk.T).reshape(n, kv, hd), pos, base)
        v = (h @ t("attn_v", layer).T).reshape(n, kv, hd)
        x = x + _attention(q, k, v) @ t("attn_output", layer).T
        h = _rms(x, t("ffn_norm", layer), eps)
        gate = _act(act, h @ t("ffn_gate", layer).T)
        x = x + (gate * (h @ t("ffn_up", layer).T)) @ t("ffn_down", layer).T
    h = _rms(x, t("output_norm", None), eps)
    return h @ t("output", None).T


def _llama_variants() -> list[Variant]:
    return [Variant(rope_base=b, permute_qk=p) for b in ROPE_BASES for p in (False, True)]


_LLAMA_SLOTS = (
    Slot("token_embd", "token_embd.weight", False, ("V", "D")),
    Slot("attn_norm", "blk.{}.attn_norm.weight", True, ("D",)),
    Slot("attn_q", "blk.{}.attn_q.weight", True, ("H*hd", "D")),
    Slot("attn_k", "blk.{}.attn_k.weight", True, ("KV*hd", "D")),
    Slot("attn_v", "blk.{}.attn_v.weight", True, ("KV*hd", "D")),
    Slot("attn_output", "blk.{}.attn_output.weight", True, ("D", "H*hd")),
    Slot("ffn_norm", "blk.{}.ffn_norm.weight", True, ("D",)),
    Slot("ffn_gate", "blk.{}.ffn_gate.weight", True, ("F", "D")),
    Slot("ffn_up", "blk.{}.ffn_up.weight", True, ("F", "D")),
    Slot("ffn_down", "blk.{}.ffn_down.weight", True, ("D", "F")),
    Slot("output_norm", "output_norm.weight", False, ("D",)),
    Slot("output", "output.weight", False, ("V", "D"), optional=True),
)


# ---------------------------------------------------------------------------- gpt2


def _ln(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
    mu = x.mean(-1, keepdim=True)
    var = (x - mu).pow(2).mean(-1, keepdim=True)
    return (x - mu) * torch.rsqrt(var + eps) * w + b


def _gpt2_logits(t: Callable[[str, int | None], torch.Tensor], ids: torch.Tensor,
                 pos: torch.Tensor, hp: dict[str, int], eps: float,
                 variant: Variant) -> torch.Tensor:
    heads, kv, hd = hp["H"], hp["KV"], hp["hd"]
    act = variant.activation or "gelu_tanh"
    n = ids.shape[0]
    x = t("token_embd", None)[ids] + t("position_embd", None)[pos]
    for layer in range(hp["L"]):
        h = _ln(x, t("attn_norm", layer), t("attn_norm_b", layer), eps)
        qkv = h @ t("attn_qkv", layer).T + t("attn_qkv_b", layer)
        q, k, v = qkv.split([heads * hd, kv * hd, kv * hd], dim=-1)
        y = _attention(q.reshape(n, heads, hd), k.reshape(n, kv, hd), v.reshape(n, kv, hd))
        x = x + y @ t("attn_output", layer).T + t("attn_output_b", layer)
        h = _ln(x, t("ffn_norm", layer), t("ffn_norm_b", layer), eps)
        up = _act(act, h @ t("ffn_up", layer).T + t("ffn_up_b", layer))
        x = x + up @ t("ffn_down", layer).T + t("ffn_down_b", layer)
    h = _ln(x, t("output_norm", None), t("output_norm_b", None), eps)
    return h @ t("output", None).T


_GPT2_SLOTS = (
    Slot("token_embd", "token_embd.weight", False, ("V", "D")),
    Slot("position_embd", "position_embd.weight", False, ("n_ctx", "D")),
    Slot("attn_norm", "blk.{}.attn_norm.weight", True, ("D",)),
    Slot("attn_norm_b", "blk.{}.attn_norm.bias", True, ("D",)),
    Slot("attn_qkv", "blk.{}.attn_qkv.weight", True, ("H*hd+2*KV*hd", "D")),
    Slot("attn_qkv_b", "blk.{}.attn_qkv.bias", True, ("H*hd+2*KV*hd",)),
    Slot("attn_output", "blk.{}.attn_output.weight", True, ("D", "H*hd")),
    Slot("attn_output_b", "blk.{}.attn_output.bias", True, ("D",)),
    Slot("ffn_norm", "blk.{}.ffn_norm.weight", True, ("D",)),
    Slot("ffn_norm_b", "blk.{}.ffn_norm.bias", True, ("D",)),
    Slot("ffn_up", "blk.{}.ffn_up.weight", True, ("F", "D")),
    Slot("ffn_up_b", "blk.{}.ffn_up.bias", True, ("F",)),
    Slot("ffn_down", "blk.{}.ffn_down.weight", True, ("D", "F")),
    Slot("ffn_down_b", "blk.{}.ffn_down.bias", True, ("D",)),
    Slot("output_norm", "output_norm.weight", False, ("D",)),
    Slot("output_norm_b", "output_norm.bias", False, ("D",)),
    Slot("output", "output.weight", False, ("V", "D"), optional=True),
)


_GELU_GATE = ("the feed-forward layer's gate uses GELU where llama.cpp's llama uses SiLU "
              "(SwiGLU)")

ARCHITECTURES: dict[str, Architecture] = {
    "llama": Architecture(
        "llama", "rms_norm", _LLAMA_SLOTS, _llama_variants, _llama_logits,
        diagnoses=(("gelu", _GELU_GATE), ("gelu_tanh", _GELU_GATE)),
    ),
    "gpt2": Architecture(
        "gpt2", "layer_norm", _GPT2_SLOTS, lambda: [Variant()], _gpt2_logits,
        diagnoses=(("gelu", ("the model computes GELU exactly (with erf), where llama.cpp's "
                             "gpt2 uses the tanh approximation")),),
    ),
}


def solve_dim(expr: str, value: int, bound: dict[str, int]) -> dict[str, int] | None:
    """Binds the one unknown of ``expr`` (a linear expression in the hyperparameters,
    ``"KV*hd"``) so that it equals ``value``: the new bindings, or None when it can't (a
    known expression that differs, or an unknown that would not be a whole number ≥ 1)."""
    names = _names(expr)
    return _solve(expr, value, tuple((n, bound[n]) for n in names if n in bound))


@functools.cache
def _names(expr: str) -> tuple[str, ...]:
    return tuple(sorted(set(re.findall(r"[A-Za-z_]\w*", expr))))


@functools.cache
def _code(expr: str) -> Any:
    return compile(expr, "<slot shape>", "eval")


@functools.lru_cache(maxsize=65536)
def _solve(expr: str, value: int, known: tuple[tuple[str, int], ...]) -> dict[str, int] | None:
    env: dict[str, Any] = {"__builtins__": {}, **dict(known)}
    unknown = [n for n in _names(expr) if n not in env]
    code = _code(expr)
    if not unknown:
        return {} if eval(code, env) == value else None
    if len(unknown) > 1:  # the slot order binds all but one before each use
        return None
    u = unknown[0]
    c = eval(code, {**env, u: 0})
    a = eval(code, {**env, u: 1}) - c
    if a == 0 or (value - c) % a:
        return None
    x = (value - c) // a
    return {u: x} if x >= 1 else None
