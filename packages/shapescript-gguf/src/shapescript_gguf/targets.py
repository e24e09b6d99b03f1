"""The architectures llama.cpp runs that a GGUF export can name, each described once: its
tensors (with their shapes, and which ones llama.cpp's loader may go without) and the
computation it runs, in words the search matches against.

This module is only data (it imports no torch), so the command line can list the
targets without loading anything heavy. ``arch.py`` computes a description as llama.cpp
does; ``search.py`` pairs a model's fields with its tensors; ``writer.py`` writes them.

Adding a target is one entry in ``TARGETS`` (its slot groups and its ``Computation``),
one example program, and one test that runs the written file in llama.cpp.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, replace

__all__ = ["NAMES", "SOFTCAP_OFF", "TARGETS", "Computation", "Join", "Slot", "Target"]

# A softcap llama.cpp applies whether or not the model has one (gemma2's attention and
# final logits), written so large that ``tanh(s / c) * c`` is ``s`` to f32's rounding:
# |s| ≤ 1e3 moves by at most (s / c)² / 3 ≈ 3e-11 of itself.
SOFTCAP_OFF = 1e8


@dataclass(frozen=True)
class Slot:
    """One kind of tensor: its GGUF name (``{}`` is the block number), whether each block
    has one, and its shape as expressions in the hyperparameters (``V``, ``D``, ``H``,
    ``KV``, ``hd``, ``F``, ``n_ctx``)."""

    key: str
    gguf: str
    per_block: bool
    shape: tuple[str, ...]

    @property
    def vector(self) -> bool:
        """A 1-D tensor (a norm's weight, a bias), written in f32 whatever the dtype."""
        return len(self.shape) == 1

    @property
    def is_output(self) -> bool:
        """The output layer, which a model may tie to the embedding instead."""
        return self.key == "output"


@dataclass(frozen=True)
class Computation:
    """What llama.cpp computes for an architecture, in the terms the search varies."""

    norm: str                    # "rms_norm" or "layer_norm" (with a bias)
    positions: str               # "rope_pairs", "rope_halves" or "learned"
    ffn: str                     # "gated" (gate, up), "fused_gated" (up holds [gate; up]), "plain"
    act: str                     # the feed-forward activation: "silu" or "gelu_tanh"
    embed_scale: bool = False    # the embedding is multiplied by sqrt(D)
    parallel: bool = False       # attention and feed-forward may read one input (a key says)
    partial_rotary: bool = False  # rotary may turn only the first features of a head
    q_width_is_d: bool = False   # the loader takes the queries' width as D (H * hd = D)
    qk_norm: bool = False        # each head's queries and keys are rms-normed first
    post_norms: bool = False     # the attention's and feed-forward's outputs normed too
    windows: bool = False        # llama.cpp runs sliding windows, on the layers it is told
    swa_rope_base: bool = False  # windowed layers may have a rotary base of their own
    softcap: bool = False        # attention scores and logits pass tanh(s / c) * c

    def describe(self) -> str:
        """The computation in a sentence, for the docs and for refusals."""
        parts = [{"rms_norm": "RMS norms", "layer_norm": "layer norms with biases"}[self.norm]]
        parts.append({"rope_pairs": "rotary on neighbouring features",
                      "rope_halves": "rotary on the two halves of each head",
                      "learned": "learned position embeddings"}[self.positions])
        if self.partial_rotary:
            parts.append("rotary on the first features of each head only, if the model says")
        if self.qk_norm:
            parts.append("RMS norms of each head's queries and keys")
        act = {"silu": "SiLU", "gelu_tanh": "GELU (tanh)"}[self.act]
        parts.append({"gated": f"a gated feed-forward layer, {act} on the gate",
                      "fused_gated": f"a gated feed-forward layer with gate and up in one "
                                     f"matrix, {act} on the gate",
                      "plain": f"a feed-forward layer with {act}"}[self.ffn])
        if self.embed_scale:
            parts.append("the embedding multiplied by sqrt(D)")
        if self.parallel:
            parts.append("attention and feed-forward in sequence or in parallel")
        if self.post_norms:
            parts.append("RMS norms of the attention's and the feed-forward layer's outputs")
        if self.windows:
            parts.append("sliding windows on the layers the file names"
                         + (", with a rotary base of their own" if self.swa_rope_base else ""))
        if self.softcap:
            parts.append("attention scores and logits soft-capped (tanh)")
        return "; ".join(parts)


@dataclass(frozen=True)
class Join:
    """A tensor that is the concatenation of others along its rows: ``whole`` (a fused
    projection) is ``parts`` one after the other. Where the loader reads only one form,
    a model with the other is written in it: its fields fused into the whole, or the
    whole split into its parts (``written``: the form the file holds)."""

    whole: str
    parts: tuple[str, ...]
    written: str                 # "whole" or "parts"

    def hidden(self) -> tuple[str, ...]:
        """The slot keys a model may fill that the file doesn't hold as they are."""
        return self.parts if self.written == "whole" else (self.whole,)

    def describe(self) -> str:
        """The rewrite in words, for the file's ``shapescript.rewrites``."""
        if self.written == "whole":
            return f"{', '.join(self.parts)} fused into {self.whole}"
        return f"{self.whole} split into {', '.join(self.parts)}"


# A group is its alternatives, each a tuple of slots; the empty alternative makes the
# group optional. A model fills one alternative of each group.
Group = tuple[tuple[Slot, ...], ...]


@dataclass(frozen=True)
class Target:
    """An architecture llama.cpp implements: its name in the file, its computation and its
    tensors, as groups in the order its forward pass first reads them."""

    name: str
    computation: Computation
    groups: tuple[Group, ...]
    joins: tuple[Join, ...] = ()

    @property
    def norm(self) -> str:
        return self.computation.norm

    @property
    def slots(self) -> tuple[Slot, ...]:
        """Every slot the architecture knows, once each, in reading order."""
        seen: dict[str, Slot] = {}
        for group in self.groups:
            for alternative in group:
                for slot in alternative:
                    seen.setdefault(slot.key, slot)
        return tuple(seen.values())

    def joined(self, keys: set[str] | frozenset[str]) -> tuple[Join, ...]:
        """The joins a model filling the slots ``keys`` needs: those whose hidden side
        (the form the loader doesn't read) it fills."""
        return tuple(j for j in self.joins if set(j.hidden()) <= keys)

    def written_slots(self, keys: set[str] | frozenset[str]) -> tuple[Slot, ...]:
        """The tensors the file holds for a model filling the slots ``keys``, in reading
        order: those slots, with each join's hidden side replaced by its written one."""
        joins = self.joined(keys)
        hidden = {k for j in joins for k in j.hidden()}
        shown = {k for j in joins for k in ((j.whole,) if j.written == "whole" else j.parts)}
        return tuple(s for s in self.slots
                     if (s.key in keys and s.key not in hidden) or s.key in shown)

    def layouts(self, count: int) -> Iterator[tuple[tuple[Slot, ...], bool]]:
        """The slot lists with ``count`` tensors that a model may fill, in the order of the
        groups' alternatives, each with whether the output layer is tied to the
        embedding."""
        for choice in itertools.product(*self.groups):
            slots = tuple(s for alternative in choice for s in alternative)
            if len(slots) == count:
                yield slots, not any(s.is_output for s in slots)

    def counts(self) -> list[int]:
        """How many fields a model of this architecture may read."""
        return sorted({sum(len(a) for a in choice) for choice in itertools.product(*self.groups)})


def _g(key: str, gguf: str, *shape: str) -> Slot:
    return Slot(key, gguf, False, shape)


def _b(key: str, gguf: str, *shape: str) -> Slot:
    return Slot(key, "blk.{}." + gguf, True, shape)


E = _g("token_embd", "token_embd.weight", "V", "D")
POS = _g("position_embd", "position_embd.weight", "n_ctx", "D")
ATTN_NORM = _b("attn_norm", "attn_norm.weight", "D")
ATTN_NORM_B = _b("attn_norm_b", "attn_norm.bias", "D")
Q = _b("attn_q", "attn_q.weight", "H*hd", "D")
Q_B = _b("attn_q_b", "attn_q.bias", "H*hd")
K = _b("attn_k", "attn_k.weight", "KV*hd", "D")
K_B = _b("attn_k_b", "attn_k.bias", "KV*hd")
V = _b("attn_v", "attn_v.weight", "KV*hd", "D")
V_B = _b("attn_v_b", "attn_v.bias", "KV*hd")
QKV = _b("attn_qkv", "attn_qkv.weight", "H*hd+2*KV*hd", "D")
QKV_B = _b("attn_qkv_b", "attn_qkv.bias", "H*hd+2*KV*hd")
Q_NORM = _b("attn_q_norm", "attn_q_norm.weight", "hd")
K_NORM = _b("attn_k_norm", "attn_k_norm.weight", "hd")
O = _b("attn_output", "attn_output.weight", "D", "H*hd")  # noqa: E741 - llama.cpp's name
O_B = _b("attn_output_b", "attn_output.bias", "D")
ATTN_POST_NORM = _b("attn_post_norm", "post_attention_norm.weight", "D")
FFN_NORM = _b("ffn_norm", "ffn_norm.weight", "D")
FFN_NORM_B = _b("ffn_norm_b", "ffn_norm.bias", "D")
GATE = _b("ffn_gate", "ffn_gate.weight", "F", "D")
GATE_B = _b("ffn_gate_b", "ffn_gate.bias", "F")
UP = _b("ffn_up", "ffn_up.weight", "F", "D")
UP_B = _b("ffn_up_b", "ffn_up.bias", "F")
UP_GATE = _b("ffn_up_gate", "ffn_up.weight", "2*F", "D")
DOWN = _b("ffn_down", "ffn_down.weight", "D", "F")
DOWN_B = _b("ffn_down_b", "ffn_down.bias", "D")
FFN_POST_NORM = _b("ffn_post_norm", "post_ffw_norm.weight", "D")
OUT_NORM = _g("output_norm", "output_norm.weight", "D")
OUT_NORM_B = _g("output_norm_b", "output_norm.bias", "D")
OUT = _g("output", "output.weight", "V", "D")


def _one(*slots: Slot) -> Group:
    return (slots,)


def _maybe(*slots: Slot) -> Group:
    """Optional tensors a model usually has (an output layer of its own): tried first."""
    return (slots, ())


def _extra(*slots: Slot) -> Group:
    """Optional tensors a model usually lacks (biases llama.cpp accepts): tried last."""
    return ((), slots)


_SEPARATE = (Q, K, V)
_SEPARATE_B = (Q, Q_B, K, K_B, V, V_B)
# A gated feed-forward layer: gate, up and down, or gate and up as one matrix [gate; up]
# (Phi-3's), which a target that reads them separately gets split.
_GATED = ((GATE, UP, DOWN), (UP_GATE, DOWN))

# The fused forms: q, k and v (and their biases) as one projection; gate and up as one.
_FUSE_QKV = (Join("attn_qkv", ("attn_q", "attn_k", "attn_v"), "whole"),
             Join("attn_qkv_b", ("attn_q_b", "attn_k_b", "attn_v_b"), "whole"))
_SPLIT_GATE_UP = (Join("ffn_up_gate", ("ffn_gate", "ffn_up"), "parts"),)

_RMS_SWIGLU = Computation("rms_norm", "rope_pairs", "gated", "silu")
_GEMMA = Computation("rms_norm", "rope_halves", "gated", "gelu_tanh", embed_scale=True)

TARGETS: dict[str, Target] = {t.name: t for t in (
    # Qwen2: Llama with biases on the queries, keys and values, rotary on halves.
    Target("qwen2", Computation("rms_norm", "rope_halves", "gated", "silu", q_width_is_d=True),
           (_one(E), _one(ATTN_NORM), (_SEPARATE_B, (QKV, QKV_B)), _one(O), _one(FFN_NORM),
            _GATED, _one(OUT_NORM), _maybe(OUT)), _SPLIT_GATE_UP),
    # Phi-3: Llama with gate and up in one matrix [gate; up], rotary on halves, heads D / H
    # wide; tried before llama, which would take such a model with the matrix split.
    Target("phi3", Computation("rms_norm", "rope_halves", "fused_gated", "silu",
                               q_width_is_d=True),
           (_one(E), _one(ATTN_NORM), ((QKV,), _SEPARATE), _one(O), _one(FFN_NORM),
            _one(UP_GATE, DOWN), _one(OUT_NORM), _maybe(OUT))),
    # Llama (and Mistral, Llama 3, Code Llama …): the loader takes the projections
    # separate or fused, with or without biases. llama.cpp's llama runs no sliding
    # window: a model with one is written with its context capped at the window.
    Target("llama", _RMS_SWIGLU,
           (_one(E), _one(ATTN_NORM), (_SEPARATE, _SEPARATE_B, (QKV,), (QKV, QKV_B)),
            _one(O), _extra(O_B), _one(FFN_NORM),
            ((GATE, UP, DOWN), (GATE, GATE_B, UP, UP_B, DOWN, DOWN_B), (UP_GATE, DOWN)),
            _one(OUT_NORM), _maybe(OUT)), _SPLIT_GATE_UP),
    # Gemma: the embedding scaled by sqrt(D), GeGLU, the output always the embedding.
    Target("gemma", _GEMMA,
           (_one(E), _one(ATTN_NORM), (_SEPARATE, (QKV,)), _one(O), _one(FFN_NORM),
            _GATED, _one(OUT_NORM)), _SPLIT_GATE_UP),
    # Gemma 2: Gemma with norms of the attention's and the feed-forward layer's outputs,
    # sliding windows on the layers the file names, and soft-capped attention scores and
    # logits (written as SOFTCAP_OFF: the serving form has neither).
    Target("gemma2", replace(_GEMMA, post_norms=True, windows=True, swa_rope_base=True,
                             softcap=True),
           (_one(E), _one(ATTN_NORM), (_SEPARATE, (QKV,)), _one(O), _one(ATTN_POST_NORM),
            _one(FFN_NORM), _GATED, _one(FFN_POST_NORM), _one(OUT_NORM)), _SPLIT_GATE_UP),
    # Gemma 3: Gemma 2 with RMS norms of each head's queries and keys, a rotary base of
    # its own on the windowed layers, no soft-capping, an output layer of its own or not.
    Target("gemma3", replace(_GEMMA, qk_norm=True, post_norms=True, windows=True,
                             swa_rope_base=True),
           (_one(E), _one(ATTN_NORM), (_SEPARATE, (QKV,)), _one(Q_NORM, K_NORM), _one(O),
            _one(ATTN_POST_NORM), _one(FFN_NORM), _GATED, _one(FFN_POST_NORM),
            _one(OUT_NORM), _maybe(OUT)), _SPLIT_GATE_UP),
    # Qwen3: Qwen2 without the biases, with RMS norms on each head's queries and keys.
    Target("qwen3", Computation("rms_norm", "rope_halves", "gated", "silu", qk_norm=True),
           (_one(E), _one(ATTN_NORM), (_SEPARATE, (QKV,)), _one(Q_NORM, K_NORM), _one(O),
            _one(FFN_NORM), _GATED, _one(OUT_NORM), _maybe(OUT)), _SPLIT_GATE_UP),
    # GPT-NeoX / Pythia: layer norms, a fused projection with bias (fused when the model
    # has three), partial rotary, attention and feed-forward in parallel (or not), an
    # output layer of its own.
    Target("gptneox", Computation("layer_norm", "rope_halves", "plain", "gelu_tanh",
                                  parallel=True, partial_rotary=True, q_width_is_d=True),
           (_one(E), _one(ATTN_NORM, ATTN_NORM_B), ((QKV, QKV_B), _SEPARATE_B), _one(O, O_B),
            _one(FFN_NORM, FFN_NORM_B), _one(UP, UP_B, DOWN, DOWN_B),
            _one(OUT_NORM, OUT_NORM_B), _one(OUT)), _FUSE_QKV),
    # StarCoder2: layer norms, biases everywhere, rotary on halves, a plain GELU layer.
    Target("starcoder2", Computation("layer_norm", "rope_halves", "plain", "gelu_tanh",
                                     q_width_is_d=True),
           (_one(E), _one(ATTN_NORM, ATTN_NORM_B), (_SEPARATE_B, (QKV, QKV_B)),
            _one(O, O_B), _one(FFN_NORM, FFN_NORM_B), _one(UP, UP_B, DOWN, DOWN_B),
            _one(OUT_NORM, OUT_NORM_B), _maybe(OUT))),
    # GPT-2: learned positions, a fused projection with bias (fused when the model has
    # three), heads of width D / H.
    Target("gpt2", Computation("layer_norm", "learned", "plain", "gelu_tanh", q_width_is_d=True),
           (_one(E, POS), _one(ATTN_NORM, ATTN_NORM_B), ((QKV, QKV_B), _SEPARATE_B),
            _one(O, O_B), _one(FFN_NORM, FFN_NORM_B), _one(UP, UP_B, DOWN, DOWN_B),
            _one(OUT_NORM, OUT_NORM_B), _maybe(OUT)), _FUSE_QKV),
)}

NAMES: tuple[str, ...] = tuple(TARGETS)
"""The targets, in the order the search tries them: a more specific description before a
more general one that would also compute the model (qwen2's biases before llama's)."""
