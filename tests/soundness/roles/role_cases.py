"""Planted semantic bugs: each a ShapeScript function ``f`` with its bug, the corrected
version, and the same two written by hand in torch. The sizes make every bug silent in
torch (equal sizes where the bug confuses two axes), so torch runs the buggy version and
returns a wrong value without complaint. ``role_runner.py`` sorts each bug into caught
statically, prevented by construction, caught at run time, or missed.

``args`` are the inputs' shapes (a string ``"i:V"`` is a tensor of indices below ``V``);
every ShapeScript program starts with ``HEADER``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

HEADER = """\
dim C = 6
dim S = 6
dim D = 8
dim E = 8
dim V = 8
dim B = 8
dim H = 2
dim Dh = D / H
dim K = 4
dim F ~ D
dim Dout ~ D
dim Pp = 16
dim Dp = 16
dim W = 4
dim Hw = 2
dim Dw = W / Hw
"""
SIZES = {"C": 6, "S": 6, "D": 8, "E": 8, "V": 8, "B": 8, "H": 2, "Dh": 4, "K": 4, "F": 8,
         "Dout": 8, "Pp": 16, "Dp": 16, "W": 4, "Hw": 2, "Dw": 2, "b": 3, "n": 8, "m": 8}

T = torch.Tensor


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # the family of bug
    bug: str
    fix: str
    args: tuple[str, ...]
    torch_bug: Callable[..., T]
    torch_fix: Callable[..., T]


def _tril(n: int, m: int) -> T:
    return torch.ones(n, m, dtype=torch.bool).tril()


def _rot_half(x: T) -> T:
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


def _rot_pairs(x: T) -> T:
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((-b, a), dim=-1).flatten(-2)


CASES: list[Case] = [
    # -- equal-sized dims in reductions -------------------------------------------------
    Case("mean_over_the_wrong_dim", "reduction",
         "fn f(x: [b C S]) -> [b C] = mean(x, over=C)\n",
         "fn f(x: [b C S]) -> [b C] = mean(x, over=S)\n",
         ("b C S",), lambda x: x.mean(1), lambda x: x.mean(2)),
    Case("sum_over_the_wrong_dim", "reduction",
         "fn f(x: [b C S]) -> [b S] = sum(x, over=S)\n",
         "fn f(x: [b C S]) -> [b S] = sum(x, over=C)\n",
         ("b C S",), lambda x: x.sum(2), lambda x: x.sum(1)),
    Case("max_over_the_wrong_dim", "reduction",
         "fn f(x: [b C S]) -> [b C] = max(x, over=C)\n",
         "fn f(x: [b C S]) -> [b C] = max(x, over=S)\n",
         ("b C S",), lambda x: x.amax(1), lambda x: x.amax(2)),
    Case("min_over_the_wrong_dim", "reduction",
         "fn f(x: [b C S]) -> [b S] = min(x, over=S)\n",
         "fn f(x: [b C S]) -> [b S] = min(x, over=C)\n",
         ("b C S",), lambda x: x.amin(2), lambda x: x.amin(1)),
    Case("variance_over_the_wrong_dim", "reduction",
         "fn f(x: [b C S]) -> [b C] = var(x, over=C)\n",
         "fn f(x: [b C S]) -> [b C] = var(x, over=S)\n",
         ("b C S",), lambda x: x.var(1), lambda x: x.var(2)),
    Case("logsumexp_over_the_wrong_dim", "reduction",
         "fn f(x: [b C S]) -> [b C] = logsumexp(x, over=C)\n",
         "fn f(x: [b C S]) -> [b C] = logsumexp(x, over=S)\n",
         ("b C S",), lambda x: x.logsumexp(1), lambda x: x.logsumexp(2)),
    Case("softmax_over_the_wrong_dim", "reduction",
         "fn f(x: [b C S]) -> [b C S] Prob over C = softmax(x, over=S)\n",
         "fn f(x: [b C S]) -> [b C S] Prob over C = softmax(x, over=C)\n",
         ("b C S",), lambda x: x.softmax(2), lambda x: x.softmax(1)),
    Case("reduce_pattern_names_swapped", "reduction",
         "fn f(x: [b C S]) -> [b S] = reduce(x, b s c -> b s, mean)\n",
         "fn f(x: [b C S]) -> [b S] = reduce(x, b c s -> b s, mean)\n",
         ("b C S",), lambda x: x.mean(2), lambda x: x.mean(1)),
    Case("pooled_weights_summed_over_channels", "reduction",
         "fn f(x: [b C S], w: [b S]) -> [b C] = sum(x * w, over=C)\n",
         "fn f(x: [b C S], w: [b S]) -> [b C] = sum(x * w, over=S)\n",
         ("b C S", "b S"), lambda x, w: (x * w[:, None, :]).sum(1),
         lambda x, w: (x * w[:, None, :]).sum(2)),
    Case("variance_of_the_wrong_centring", "reduction",
         "fn f(x: [b C S]) -> [b C]:\n    c = x - mean(x, over=S)\n    return mean(c * c, over=C)\n",
         "fn f(x: [b C S]) -> [b C]:\n    c = x - mean(x, over=S)\n    return mean(c * c, over=S)\n",
         ("b C S",), lambda x: ((x - x.mean(2, keepdim=True)) ** 2).mean(1),
         lambda x: ((x - x.mean(2, keepdim=True)) ** 2).mean(2)),
    Case("batch_mean_for_a_feature_mean", "statistics",
         "fn f(x: [B D]) -> [D] = mean(x, over=D)\n",
         "fn f(x: [B D]) -> [D] = mean(x, over=B)\n",
         ("B D",), lambda x: x.mean(1), lambda x: x.mean(0)),
    Case("class_mean_for_a_batch_mean", "statistics",
         "fn f(x: [B V]) -> [V] = mean(x, over=V)\n",
         "fn f(x: [B V]) -> [V] = mean(x, over=B)\n",
         ("B V",), lambda x: x.mean(1), lambda x: x.mean(0)),
    Case("sequence_mean_for_a_feature_mean", "statistics",
         "fn f(x: [b n D]) -> [b D] = mean(x, over=D)\n",
         "fn f(x: [b n D]) -> [b D] = mean(x, over=n)\n",
         ("b n D",), lambda x: x.mean(2), lambda x: x.mean(1)),
    Case("per_example_norm_with_batch_statistics", "statistics",
         "fn f(x: [B D]) -> [B D] = x - mean(x, over=B)\n",
         "fn f(x: [B D]) -> [B D] = x - mean(x, over=D)\n",
         ("B D",), lambda x: x - x.mean(0), lambda x: x - x.mean(1, keepdim=True)),
    # -- equal-sized dims in contractions -----------------------------------------------
    Case("weight_used_transposed", "contraction",
         "fn f(x: [b D], w: [E D]) -> [b E] = x @ w\n",
         "fn f(x: [b D], w: [E D]) -> [b E] = einsum(x, w: b D, E D -> b E)\n",
         ("b D", "E D"), lambda x, w: x @ w, lambda x, w: x @ w.T),
    Case("square_weight_used_transposed", "contraction",
         "fn f(x: [b Dout], w: [D Dout]) -> [b D] = x @ w\n",
         "fn f(x: [b Dout], w: [D Dout]) -> [b D] = einsum(x, w: b Dout, D Dout -> b D)\n",
         ("b Dout", "D Dout"), lambda x, w: x @ w, lambda x, w: x @ w.T),
    Case("square_weight_output_declared_as_input", "contraction",
         "fn f(x: [b D], w: [Dout D]) -> [b Dout] = x @ w\n",
         "fn f(x: [b D], w: [Dout D]) -> [b Dout] = einsum(x, w: b D, Dout D -> b Dout)\n",
         ("b D", "Dout D"), lambda x, w: x @ w, lambda x, w: x @ w.T),
    Case("einsum_dims_swapped", "contraction",
         "fn f(x: [b D], w: [D E]) -> [b E] = einsum(x, w: b D, E D -> b E)\n",
         "fn f(x: [b D], w: [D E]) -> [b E] = einsum(x, w: b D, D E -> b E)\n",
         ("b D", "D E"), lambda x, w: x @ w.T, lambda x, w: x @ w),
    Case("einsum_name_on_two_roles", "contraction",
         "fn f(x: [b D], w: [D Dout]) -> [b Dout] = einsum(x, w: b i, o i -> b o)\n",
         "fn f(x: [b D], w: [D Dout]) -> [b Dout] = einsum(x, w: b i, i o -> b o)\n",
         ("b D", "D Dout"), lambda x, w: x @ w.T, lambda x, w: x @ w),
    Case("tied_unembedding_untransposed", "contraction",
         "fn f(h: [b n D], emb: [V D]) -> [b n V] = h @ emb\n",
         "fn f(h: [b n D], emb: [V D]) -> [b n V] = einsum(h, emb: b n D, V D -> b n V)\n",
         ("b n D", "V D"), lambda h, e: h @ e, lambda h, e: h @ e.T),
    Case("embedding_looked_up_on_the_wrong_axis", "contraction",
         "fn f(ids: [b n] Index[V], emb: [D V]) -> [b n V] = emb[ids]\n",
         "fn f(ids: [b n] Index[V], emb: [D V]) -> [b n D] = "
         "rearrange(emb, d v -> v d)[ids]\n",
         ("i:V b n", "D V"), lambda i, e: e[i], lambda i, e: e.T[i]),
    Case("mlp_weights_in_the_wrong_order", "contraction",
         "fn f(x: [b D], w1: [D F], w2: [F D]) -> [b D] = relu(x @ w2) @ w1\n",
         "fn f(x: [b D], w1: [D F], w2: [F D]) -> [b D] = relu(x @ w1) @ w2\n",
         ("b D", "D F", "F D"), lambda x, a, c: torch.relu(x @ c) @ a,
         lambda x, a, c: torch.relu(x @ a) @ c),
    Case("residual_added_in_the_hidden_space", "contraction",
         "fn f(x: [b D], w1: [D F]) -> [b D] = x @ w1 + x\n",
         "fn f(x: [b D], w1: [D F], w2: [F D]) -> [b D] = relu(x @ w1) @ w2 + x\n",
         ("b D", "D F", "F D"), lambda x, a, c: x @ a + x,
         lambda x, a, c: torch.relu(x @ a) @ c + x),
    Case("classifier_on_the_pooled_wrong_axis", "contraction",
         "fn f(x: [b C S], w: [S K]) -> [b K] = mean(x, over=S) @ w\n",
         "fn f(x: [b C S], w: [S K]) -> [b K] = mean(x, over=C) @ w\n",
         ("b C S", "S K"), lambda x, w: x.mean(2) @ w, lambda x, w: x.mean(1) @ w),
    Case("matrix_vector_from_the_wrong_side", "contraction",
         "fn f(a: [C S], v: [C]) -> [S] = a @ v\n",
         "fn f(a: [C S], v: [C]) -> [S] = v @ a\n",
         ("C S", "C"), lambda a, v: a @ v, lambda a, v: v @ a),
    Case("outer_product_reversed", "contraction",
         "fn f(u: [C], v: [S]) -> [C S] = einsum(v, u: i, j -> i j)\n",
         "fn f(u: [C], v: [S]) -> [C S] = einsum(u, v: i, j -> i j)\n",
         ("C", "S"), lambda u, v: torch.outer(v, u), lambda u, v: torch.outer(u, v)),
    Case("patch_embedding_transposed", "contraction",
         "fn f(p: [b n Pp], w: [Dp Pp]) -> [b n Dp] = p @ w\n",
         "fn f(p: [b n Pp], w: [Dp Pp]) -> [b n Dp] = einsum(p, w: b n Pp, Dp Pp -> b n Dp)\n",
         ("b n Pp", "Dp Pp"), lambda p, w: p @ w, lambda p, w: p @ w.T),
    Case("channel_mix_on_positions", "contraction",
         "fn f(x: [b C S], w: [C C]) -> [b C S] = x @ w\n",
         "fn f(x: [b C S], w: [C C]) -> [b C S] = einsum(x, w: b c s, c o -> b o s)\n",
         ("b C S", "C C"), lambda x, w: x @ w, lambda x, w: torch.einsum("bcs,co->bos", x, w)),
    Case("argument_of_the_wrong_dim", "contraction",
         "fn scale(x: [b C]) -> [b C] = x * 2.0\n"
         "fn f(x: [b C S]) -> [b C] = scale(mean(x, over=C))\n",
         "fn scale(x: [b C]) -> [b C] = x * 2.0\n"
         "fn f(x: [b C S]) -> [b C] = scale(mean(x, over=S))\n",
         ("b C S",), lambda x: x.mean(1) * 2, lambda x: x.mean(2) * 2),
    Case("heads_and_head_dim_swapped", "split/merge",
         "fn f(x: [b n W]) -> [b Hw n Dw] = rearrange(x, b n (h e) -> b e n h, h=Hw)\n",
         "fn f(x: [b n W]) -> [b Hw n Dw] = rearrange(x, b n (h e) -> b h n e, h=Hw)\n",
         ("b n W",), lambda x: x.reshape(3, 8, 2, 2).permute(0, 3, 1, 2),
         lambda x: x.reshape(3, 8, 2, 2).permute(0, 2, 1, 3)),
    Case("cross_attention_scores_transposed", "attention",
         "fn f(q: [b n D], kv: [b m D]) -> [b n D]:\n"
         "    s = einsum(q, kv: b n d, b m d -> b m n)\n"
         "    p = softmax(s, over=m)\n"
         "    return einsum(p, kv: b n m, b m d -> b n d)\n",
         "fn f(q: [b n D], kv: [b m D]) -> [b n D]:\n"
         "    s = einsum(q, kv: b n d, b m d -> b n m)\n"
         "    p = softmax(s, over=m)\n"
         "    return einsum(p, kv: b n m, b m d -> b n d)\n",
         ("b n D", "b m D"),
         lambda q, k: torch.einsum("bnm,bmd->bnd", torch.einsum("bnd,bmd->bmn", q, k).softmax(1), k),
         lambda q, k: torch.einsum("bnm,bmd->bnd", torch.einsum("bnd,bmd->bnm", q, k).softmax(2), k)),
    # -- prevented by construction: named axes broadcast and align by name ----------------
    Case("transposed_causal_mask", "mask",
         "fn f(x: [b n D]) -> [b n n]:\n"
         "    s = einsum(x, x: b n d, b t d -> b n t)\n"
         "    return where(causal[t n], s, 0.0)\n",
         "fn f(x: [b n D]) -> [b n n]:\n"
         "    s = einsum(x, x: b n d, b t d -> b n t)\n"
         "    return where(causal[n t], s, 0.0)\n",
         ("b n D",), lambda x: torch.where(_tril(8, 8).T, x @ x.transpose(1, 2), 0.0),
         lambda x: torch.where(_tril(8, 8), x @ x.transpose(1, 2), 0.0)),
    Case("bias_broadcast_on_the_last_axis", "broadcast",
         "fn f(x: [b C S], bias: [C]) -> [b C S] = x + bias\n",
         "fn f(x: [b C S], bias: [C]) -> [b C S] = x + bias\n",
         ("b C S", "C"), lambda x, c: x + c, lambda x, c: x + c[:, None]),
    Case("gain_broadcast_on_the_last_axis", "broadcast",
         "fn f(x: [b C S], g: [C]) -> [b C S] = x * g\n",
         "fn f(x: [b C S], g: [C]) -> [b C S] = x * g\n",
         ("b C S", "C"), lambda x, g: x * g, lambda x, g: x * g[:, None]),
    Case("positional_table_on_the_channel_axis", "broadcast",
         "fn f(x: [b C S], pos: [S C]) -> [b C S] = x + pos\n",
         "fn f(x: [b C S], pos: [S C]) -> [b C S] = x + pos\n",
         ("b C S", "S C"), lambda x, p: x + p, lambda x, p: x + p.T),
    Case("mask_over_the_wrong_axis", "mask",
         "fn f(x: [b C S], keep: [S C] Mask) -> [b C S] = where(keep, x, 0.0)\n",
         "fn f(x: [b C S], keep: [S C] Mask) -> [b C S] = where(keep, x, 0.0)\n",
         ("b C S", "m:S C"), lambda x, m: torch.where(m, x, 0.0),
         lambda x, m: torch.where(m.T, x, 0.0)),
    # -- what the types can't see ----------------------------------------------------------
    Case("key_padding_mask_on_queries", "mask",
         "fn f(x: [b n D], pad: [b n] Mask) -> [b n n]:\n"
         "    s = einsum(x, x: b n d, b t d -> b n t)\n"
         "    return where(pad, s, 0.0)\n",
         "fn f(x: [b n D], pad: [b n] Mask) -> [b n n]:\n"
         "    s = einsum(x, x: b n d, b t d -> b n t)\n"
         "    return where(rearrange(pad, b t -> b t), s, 0.0)\n",
         ("b n D", "m:b n"), lambda x, m: torch.where(m[:, :, None], x @ x.transpose(1, 2), 0.0),
         lambda x, m: torch.where(m[:, None, :], x @ x.transpose(1, 2), 0.0)),
    Case("softmax_over_queries", "attention",
         "fn f(x: [b n D]) -> [b n D]:\n"
         "    s = einsum(x, x: b n d, b t d -> b n t)\n"
         "    return einsum(softmax(s, over=n), x: b n t, b t d -> b n d)\n",
         "fn f(x: [b n D]) -> [b n D]:\n"
         "    s = einsum(x, x: b n d, b t d -> b n t)\n"
         "    return einsum(softmax(s, over=t), x: b n t, b t d -> b n d)\n",
         ("b n D",), lambda x: (x @ x.transpose(1, 2)).softmax(1) @ x,
         lambda x: (x @ x.transpose(1, 2)).softmax(2) @ x),
    Case("cache_appended_before_itself", "cache",
         "fn f(cache: [b n D], k: [b 1 D]) -> [b n+1 D] = concat((k, cache), over=n)\n",
         "fn f(cache: [b n D], k: [b 1 D]) -> [b n+1 D] = concat((cache, k), over=n)\n",
         ("b n D", "b 1 D"), lambda c, k: torch.cat((k, c), 1), lambda c, k: torch.cat((c, k), 1)),
    Case("heads_merged_in_the_other_order", "split/merge",
         "fn f(x: [b n D]) -> [b n D]:\n"
         "    y = rearrange(x, b n (h e) -> b h n e, h=H)\n"
         "    return rearrange(y * 2.0, b h n e -> b n (e h))\n",
         "fn f(x: [b n D]) -> [b n D]:\n"
         "    y = rearrange(x, b n (h e) -> b h n e, h=H)\n"
         "    return rearrange(y * 2.0, b h n e -> b n (h e))\n",
         ("b n D",), lambda x: (x.reshape(3, 8, 2, 4) * 2).permute(0, 1, 3, 2).reshape(3, 8, 8),
         lambda x: x * 2),
    Case("heads_merged_in_the_other_order_elsewhere", "split/merge",
         "fn f(x: [b H n Dh]) -> [b n D] = rearrange(x, b h n e -> b n (e h))\n",
         "fn f(x: [b H n Dh]) -> [b n D] = rearrange(x, b h n e -> b n (h e))\n",
         ("b H n Dh",), lambda x: x.permute(0, 2, 3, 1).reshape(3, 8, 8),
         lambda x: x.permute(0, 2, 1, 3).reshape(3, 8, 8)),
    Case("gqa_heads_tiled_in_the_other_order", "split/merge",
         "fn f(k: [b H n Dh]) -> [b 2*H n Dh] = repeat(k, b g n e -> b (r g) n e, r=2)\n",
         "fn f(k: [b H n Dh]) -> [b 2*H n Dh] = repeat(k, b g n e -> b (g r) n e, r=2)\n",
         ("b H n Dh",), lambda k: k.repeat(1, 2, 1, 1), lambda k: k.repeat_interleave(2, dim=1)),
    Case("rotary_halves_for_pairs", "rotary",
         "fn f(x: [b n D]) -> [b n D]:\n"
         "    h = rearrange(x, b n (two k) -> two b n k, two=2)\n"
         "    return rearrange((-h[1], h[0]), two b n k -> b n (two k))\n",
         "fn f(x: [b n D]) -> [b n D]:\n"
         "    h = rearrange(x, b n (k two) -> two b n k, two=2)\n"
         "    return rearrange((-h[1], h[0]), two b n k -> b n (k two))\n",
         ("b n D",), _rot_half, _rot_pairs),
    Case("attention_scale_of_the_model_width", "attention",
         "fn f(q: [b H n Dh], k: [b H n Dh]) -> [b H n n]:\n"
         "    return einsum(q, k: b h n e, b h t e -> b h n t) / 2.8284271247461903\n",
         "fn f(q: [b H n Dh], k: [b H n Dh]) -> [b H n n]:\n"
         "    return einsum(q, k: b h n e, b h t e -> b h n t) / 2.0\n",
         ("b H n Dh", "b H n Dh"), lambda q, k: q @ k.transpose(-1, -2) / 8 ** 0.5,
         lambda q, k: q @ k.transpose(-1, -2) / 4 ** 0.5),
    Case("language_model_targets_not_shifted", "targets",
         "fn f(logits: [n b V], ids: [n b] Index[V]) -> [] = "
         "cross_entropy(logits[0..n-1], ids[0..n-1], over=V)\n",
         "fn f(logits: [n b V], ids: [n b] Index[V]) -> [] = "
         "cross_entropy(logits[0..n-1], ids[1..n], over=V)\n",
         ("n b V", "i:V n b"),
         lambda lg, ids: torch.nn.functional.cross_entropy(lg[:-1].reshape(-1, 8), ids[:-1].reshape(-1)),
         lambda lg, ids: torch.nn.functional.cross_entropy(lg[:-1].reshape(-1, 8), ids[1:].reshape(-1))),
]
