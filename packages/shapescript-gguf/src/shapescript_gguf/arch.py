"""The targets' computation (``targets.py`` describes them) written again in torch, as
llama.cpp computes it, and the rewrites that turn a model's fields into the tensors a
GGUF file holds.

``logits`` computes, in the dtype of the tensors it is given (the search gives it f64),
what llama.cpp computes from the file's tensors by slot. ``accessor`` (with
``file_tensor`` for one field) is the one place a model's fields become the file's
tensors, fused or split where the loader reads only the other form: the search computes
through it and the writer writes through it, so what was verified is what is written.

A ``Variant`` is what the search chooses besides the pairing: the rotary base and how
many features of a head rotary turns, and the rewrites (query and key rows reordered
between rotary on halves and on pairs, a fused projection's rows regrouped from per head
to per kind, ``1 + w`` norms folded into their weights, attention and feed-forward in
parallel where the target has the switch).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import torch
import torch.nn.functional as F

from shapescript_gguf.targets import NAMES, SOFTCAP_OFF, TARGETS, Computation, Slot, Target

__all__ = ["ARCHITECTURES", "NAMES", "ROPE_BASES", "Architecture", "Pairing", "Slot", "Variant",
           "accessor", "file_tensor", "logits", "permute_qk", "slot_tensor", "solve_dim",
           "variant_groups"]

Architecture = Target
ARCHITECTURES: dict[str, Target] = TARGETS

# The rotary bases models commonly use: Llama 1/2 and most others, Llama 3, Code Llama /
# Mistral / Qwen2, then less common ones.
ROPE_BASES: tuple[float, ...] = (10000.0, 500000.0, 1000000.0, 100000.0, 50000.0, 5000000.0)

# The norms' weights: a ``1 + w`` norm is written with ``1 + w`` as its weight.
_NORM_WEIGHTS = frozenset({"attn_norm", "ffn_norm", "output_norm", "attn_q_norm",
                           "attn_k_norm", "attn_post_norm", "ffn_post_norm"})


@dataclass(frozen=True)
class Variant:
    """The choices the search makes besides the pairing; each rewrite is recorded in the
    file's metadata (``shapescript.rewrites``)."""

    rope_base: float | None = None
    permute_qk: bool = False       # query/key rows reordered: halves <-> neighbouring pairs
    rot_dims: int | None = None    # features of each head rotary turns (None: all)
    parallel: bool = False         # attention and feed-forward read the same input
    norm_offset: float = 0.0       # added to every norm's weight: x * (1 + w)
    qkv_per_head: bool = False     # the fused projection's rows are (head, q/k/v, feature)
    rope_base_swa: float | None = None  # the windowed layers' base, where it differs
    # Diagnosis only: the activation llama.cpp would need for the source's logits.
    activation: str | None = None

    def describe(self, to_pairs: bool = True) -> str:
        """The variant in words; ``to_pairs``: the target rotates neighbouring pairs."""
        parts = []
        if self.rope_base is not None:
            parts.append(f"rotary base {_number(self.rope_base)}")
        if self.rope_base_swa is not None:
            parts.append(f"rotary base {_number(self.rope_base_swa)} on the windowed layers")
        if self.rot_dims is not None:
            parts.append(f"rotary on the first {self.rot_dims} features of each head")
        parts.extend(self.rewrites(to_pairs))
        return ", ".join(parts)

    def rewrites(self, to_pairs: bool = True) -> list[str]:
        """The rewrites of the fields this variant applies, in words."""
        out = []
        if self.permute_qk:
            source = "halves" if to_pairs else "neighbouring pairs"
            out.append(f"query and key rows reordered for rotary on {source}")
        if self.qkv_per_head:
            out.append("the fused projection's rows regrouped from per head to per kind")
        if self.norm_offset:
            out.append(f"{_number(self.norm_offset)} added to every norm's weight")
        if self.parallel:
            out.append("attention and feed-forward in parallel")
        return out


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


# ------------------------------------------------------------------------- rewrites


def _row_order(hd: int, rot: int, to_pairs: bool) -> list[int]:
    """Within one head, the old row each new row takes: rotary on halves (feature j with
    j + rot/2) to rotary on pairs (2j with 2j+1), or back; rows past ``rot`` stay."""
    order = list(range(hd))
    half = rot // 2
    for j in range(half):
        if to_pairs:
            order[2 * j], order[2 * j + 1] = j, j + half
        else:
            order[j], order[j + half] = 2 * j, 2 * j + 1
    return order


def reorder_qk(w: torch.Tensor, heads: int, hd: int, rot: int, to_pairs: bool) -> torch.Tensor:
    """Reorders each head's rows of a query or key projection ``[heads·hd, …]`` (or its
    bias) so that the target's rotary computes what the source's did."""
    one = _row_order(hd, rot, to_pairs)
    index = torch.tensor([h * hd + r for h in range(heads) for r in one], device=w.device)
    return w.index_select(0, index)


def permute_qk(w: torch.Tensor, heads: int) -> torch.Tensor:
    """Reorders each head's rows of a query or key projection ``[heads·hd, D]`` so that
    rotary on neighbouring pairs computes what rotary on halves computed: new row 2j is
    old row j, new row 2j+1 is old row j + hd/2 (what llama.cpp's converter does to
    Hugging Face's llama weights)."""
    hd = w.shape[0] // heads
    return reorder_qk(w, heads, hd, hd, to_pairs=True)


def file_tensor(target: Target, key: str, value: torch.Tensor, variant: Variant,
                hp: dict[str, int]) -> torch.Tensor:
    """The tensor the file holds for slot ``key``, from the field's value for one block
    (already ``[out in]``)."""
    if key in _NORM_WEIGHTS and variant.norm_offset:
        value = value + variant.norm_offset
    heads, kv, hd = hp["H"], hp["KV"], hp["hd"]
    if key in ("attn_qkv", "attn_qkv_b") and variant.qkv_per_head:
        value = value.reshape(heads, 3, hd, *value.shape[1:]).transpose(0, 1).reshape(
            value.shape)
    if variant.permute_qk:
        rot = variant.rot_dims or hd
        to_pairs = target.computation.positions == "rope_pairs"
        if key in ("attn_q", "attn_q_b"):
            value = reorder_qk(value, heads, hd, rot, to_pairs)
        elif key in ("attn_k", "attn_k_b"):
            value = reorder_qk(value, kv, hd, rot, to_pairs)
        elif key in ("attn_qkv", "attn_qkv_b"):
            q, k, v = value.split([heads * hd, kv * hd, kv * hd])
            value = torch.cat((reorder_qk(q, heads, hd, rot, to_pairs),
                               reorder_qk(k, kv, hd, rot, to_pairs), v))
    return value


# slot key → (field, transposed): the field a slot of the file is made from.
Pairing = dict[str, tuple[str, bool]]


def accessor(arch: Architecture, values: dict[str, torch.Tensor], pairing: Pairing,
             tied: bool, variant: Variant, hp: dict[str, int]):
    """The file's tensors by slot, as ``logits`` reads them and the writer writes them:
    each field's value for the block, rewritten by the variant (``file_tensor``), and
    fused or split where the loader reads only the other form (``targets.Join``); a slot
    the file doesn't hold is None."""
    joins = arch.joined(frozenset(pairing))
    hidden = {k for j in joins for k in j.hidden()}

    def field(key: str, layer: int | None) -> torch.Tensor:
        name, transposed = pairing[key]
        value = slot_tensor(values[name], len(_slot_rank[key]), layer, transposed)
        return file_tensor(arch, key, value, variant, hp)

    def get(key: str, layer: int | None) -> torch.Tensor | None:
        if key == "output" and tied:
            key = "token_embd"
        for join in joins:
            if join.written == "whole" and key == join.whole:
                return torch.cat([field(p, layer) for p in join.parts])
            if join.written == "parts" and key in join.parts:
                whole = field(join.whole, layer)
                return whole.chunk(len(join.parts))[join.parts.index(key)]
        if key not in pairing or key in hidden:
            return None
        return field(key, layer)
    return get


def slot_tensor(value: torch.Tensor, rank: int, layer: int | None,
                transposed: bool) -> torch.Tensor:
    """A field's tensor for one slot: block ``layer`` of a stacked field, transposed
    when the field is ``[in out]``."""
    if layer is not None and value.dim() > rank:
        value = value[layer]
    return value.T if transposed else value


_slot_rank: dict[str, tuple[str, ...]] = {
    s.key: s.shape for a in ARCHITECTURES.values() for s in a.slots}


def variant_groups(target: Target, hp: dict[str, int], slots: tuple[Slot, ...],
                   windows: tuple[int | None, ...] = ()) -> list[list[Variant]]:
    """The variants to compute for one pairing, grouped so that the variants of a group
    agree on the first token's logits (at position 0 a rotary turns nothing, and attention
    over one key gives its value, whatever the queries and keys): when one of a group
    differs there, the rest of the group is skipped."""
    c = target.computation
    keys = {s.key for s in slots}
    offsets = (0.0, 1.0) if c.norm == "rms_norm" else (0.0,)
    parallels = (False, True) if c.parallel else (False,)
    regroup = (False, True) if "attn_qkv" in keys and hp["H"] == hp["KV"] else (False,)
    hd = hp["hd"]
    dims: list[int | None] = [None]
    if c.partial_rotary:
        dims += [d for d in (hd // 2, hd // 4) if d >= 2 and d % 2 == 0]
    # A rotary base of their own for the windowed layers, where some layers have a window
    # and some don't (Gemma 3's local base).
    mixed = c.swa_rope_base and any(w is not None for w in windows) and None in windows
    swa_bases: tuple[float | None, ...] = (None, *ROPE_BASES) if mixed else (None,)
    groups = []
    for offset in offsets:
        for parallel in parallels:
            for per_head in regroup:
                base = Variant(parallel=parallel, norm_offset=offset, qkv_per_head=per_head)
                if c.positions == "learned":
                    groups.append([base])
                    continue
                groups.append([replace(base, rope_base=b, rope_base_swa=sb, permute_qk=p,
                                       rot_dims=d)
                               for d in dims for b in ROPE_BASES for sb in swa_bases
                               if sb != b for p in (False, True)])
    return groups


# ---------------------------------------------------------------------- computation

# A file's tensor by slot and block: None for a slot the file lacks (an optional one; the
# required ones are there, as the search checked), so the result is used unchecked.
Tensors = Callable[[str, int | None], Any]


def _plus(x: torch.Tensor, b: torch.Tensor | None) -> torch.Tensor:
    return x if b is None else x + b


def _norm(c: Computation, x: torch.Tensor, w: torch.Tensor, b: torch.Tensor | None,
          eps: float) -> torch.Tensor:
    if c.norm == "rms_norm":
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w
    mu = x.mean(-1, keepdim=True)
    var = (x - mu).pow(2).mean(-1, keepdim=True)
    return _plus((x - mu) * torch.rsqrt(var + eps) * w, b)


def _rope(x: torch.Tensor, pos: torch.Tensor, base: float, rot: int,
          pairs: bool) -> torch.Tensor:
    """llama.cpp's rotary on ``x: [n, heads, hd]``, on its first ``rot`` features: each
    neighbouring pair (2i, 2i+1) (GGML_ROPE_TYPE_NORMAL) or each i with i + rot/2
    (NEOX) turned by pos · base^(-2i/rot)."""
    turned, rest = x[..., :rot], x[..., rot:]
    i = torch.arange(0, rot, 2, dtype=x.dtype, device=x.device)
    theta = pos.to(x.dtype)[:, None] * base ** (-i / rot)          # [n, rot/2]
    c, s = torch.cos(theta)[:, None, :], torch.sin(theta)[:, None, :]
    if pairs:
        x0, x1 = turned[..., 0::2], turned[..., 1::2]
        out = torch.stack((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1).reshape(turned.shape)
    else:
        x0, x1 = turned[..., : rot // 2], turned[..., rot // 2:]
        out = torch.cat((x0 * c - x1 * s, x0 * s + x1 * c), dim=-1)
    return torch.cat((out, rest), dim=-1)


def _softcap(x: torch.Tensor, cap: float) -> torch.Tensor:
    return torch.tanh(x / cap) * cap


def _attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, window: int | None = None,
               softcap: float | None = None) -> torch.Tensor:
    """Causal attention of ``q: [n, H, hd]`` over ``k, v: [n, KV, hd]``, query head h
    reading key head h // (H/KV) (ggml's broadcast), scale 1/sqrt(hd): ``[n, H·hd]``.
    With a ``window``, a query sees itself and the ``window - 1`` keys before it (a key
    ``window`` or more positions back is masked, as llama.cpp's LLAMA_SWA_TYPE_STANDARD
    does); with ``softcap``, the scores pass ``tanh(s / c) * c`` first."""
    n, heads, hd = q.shape
    group = heads // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = torch.einsum("qhd,khd->hqk", q, k) / math.sqrt(hd)
    if softcap is not None:
        scores = _softcap(scores, softcap)
    mask = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
    if window is not None:
        mask = mask.triu(1 - window)
    scores = scores.masked_fill(~mask, float("-inf"))
    out = torch.einsum("hqk,khd->qhd", scores.softmax(-1), v)
    return out.reshape(n, heads * hd)


def _act(name: str, x: torch.Tensor) -> torch.Tensor:
    if name == "silu":
        return F.silu(x)
    if name == "gelu_tanh":
        return F.gelu(x, approximate="tanh")
    return F.gelu(x)


def _qkv(t: Tensors, h: torch.Tensor, layer: int,
         hp: dict[str, int]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    heads, kv, hd = hp["H"], hp["KV"], hp["hd"]
    n = h.shape[0]
    fused = t("attn_qkv", layer)
    if fused is not None:
        qkv = _plus(h @ fused.T, t("attn_qkv_b", layer))
        q, k, v = qkv.split([heads * hd, kv * hd, kv * hd], dim=-1)
    else:
        q = _plus(h @ t("attn_q", layer).T, t("attn_q_b", layer))
        k = _plus(h @ t("attn_k", layer).T, t("attn_k_b", layer))
        v = _plus(h @ t("attn_v", layer).T, t("attn_v_b", layer))
    return q.reshape(n, heads, hd), k.reshape(n, kv, hd), v.reshape(n, kv, hd)


def _ffn(c: Computation, act: str, t: Tensors, h: torch.Tensor, layer: int) -> torch.Tensor:
    if c.ffn == "gated":
        gate = _act(act, _plus(h @ t("ffn_gate", layer).T, t("ffn_gate_b", layer)))
        up = gate * _plus(h @ t("ffn_up", layer).T, t("ffn_up_b", layer))
    elif c.ffn == "fused_gated":
        gate, up = (h @ t("ffn_up_gate", layer).T).chunk(2, dim=-1)
        up = _act(act, gate) * up
    else:
        up = _act(act, _plus(h @ t("ffn_up", layer).T, t("ffn_up_b", layer)))
    return _plus(up @ t("ffn_down", layer).T, t("ffn_down_b", layer))


def logits(c: Computation, t: Tensors, ids: torch.Tensor, pos: torch.Tensor,
           hp: dict[str, int], eps: float, variant: Variant,
           windows: tuple[int | None, ...] = ()) -> torch.Tensor:
    """What llama.cpp computes for one sequence ``ids: [n]`` at positions ``pos: [n]``
    from the file's tensors (``t(slot, block)``, None for a slot the file lacks): the
    logits ``[n, V]``. ``windows``: each layer's sliding window (None: none), for a
    target that runs them."""
    act = variant.activation or c.act
    rot = variant.rot_dims or hp["hd"]
    cap = SOFTCAP_OFF if c.softcap else None
    x = t("token_embd", None)[ids]
    if c.embed_scale:
        x = x * math.sqrt(hp["D"])
    if c.positions == "learned":
        x = x + t("position_embd", None)[pos]
    for layer in range(hp["L"]):
        window = windows[layer] if c.windows and windows else None
        base = variant.rope_base or 10000.0
        if window is not None and variant.rope_base_swa is not None:
            base = variant.rope_base_swa
        h = _norm(c, x, t("attn_norm", layer), t("attn_norm_b", layer), eps)
        q, k, v = _qkv(t, h, layer, hp)
        if c.qk_norm:
            q = _norm(c, q, t("attn_q_norm", layer), None, eps)
            k = _norm(c, k, t("attn_k_norm", layer), None, eps)
        if c.positions != "learned":
            pairs = c.positions == "rope_pairs"
            q, k = _rope(q, pos, base, rot, pairs), _rope(k, pos, base, rot, pairs)
        y = _plus(_attention(q, k, v, window, cap) @ t("attn_output", layer).T,
                  t("attn_output_b", layer))
        if c.post_norms:
            y = _norm(c, y, t("attn_post_norm", layer), None, eps)
        if variant.parallel:
            h = _norm(c, x, t("ffn_norm", layer), t("ffn_norm_b", layer), eps)
            x = x + y + _ffn(c, act, t, h, layer)
        else:
            x = x + y
            h = _norm(c, x, t("ffn_norm", layer), t("ffn_norm_b", layer), eps)
            f = _ffn(c, act, t, h, layer)
            if c.post_norms:
                f = _norm(c, f, t("ffn_post_norm", layer), None, eps)
            x = x + f
    h = _norm(c, x, t("output_norm", None), t("output_norm_b", None), eps)
    out = h @ t("output", None).T
    return out if cap is None else _softcap(out, cap)


# ------------------------------------------------------------------ slot shapes


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

