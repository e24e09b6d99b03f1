"""The help of each serving rule's diagnostics (E3301–E3308), and E3304's by what it
found: a help never suggests what its diagnostic flagged."""

from __future__ import annotations
from shapescript import error_codes as ec

__all__ = ["HELP", "MIX_HELP"]

HELP = {
    ec.E3301: "take the model, then `ids: [b n] Index[V]`, then optionally `pos: [b n] Index[P]`; "
             "give every other parameter a default",
    ec.E3302: "end with `return linear(h, m.W)` (or `h |> linear(m.W)`), `m.W` a param of "
             "shape `[V D]`, with no bias",
    ec.E3303: "use the ids once, in `embedding(ids, m.E)`, and read the embedding table and "
             "the output layer nowhere else",
    ec.E3304: "work on each position by itself; only attention may mix positions, and the "
             "positions themselves come in as a parameter `pos: [b n] Index[P]`",
    ec.E3305: "give attention queries, keys and values of one shape `[b H n Dh]`, H and Dh dims, "
             "the same in every attention; repeat keys and values with fewer heads to H",
    ec.E3306: "take the model as the first parameter: `fn forward(m: Model, …)`",
    ec.E3307: "repeat keys and values to the query heads by `repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)` "
             "right before the attention, and use the repeated values for nothing else",
    ec.E3308: "give the window as a number, a dim or a const of at least 1: "
             "`causal[n n](window=W)`",
}

# What E3304 says to do, by what it found: never the thing it flagged.
MIX_HELP = {
    "mask": "the engine applies its own masks only, written alone in the call: the causal "
            "mask `causal[n n]`, or a sliding window `causal[n n](window=W)`; a mask of "
            "the model's own is for transformers only",
    "ctor": "write this mask inside the attention call, as its `attn_mask=`, where the "
            "engine puts its own",
    "window": "export it with `--hf` for transformers and vLLM, which run sliding windows",
    "count": "take the positions as a parameter `pos: [b n] Index[P]` rather than counting "
             "the tokens",
}
