## A small Gemma 3: Gemma 2's blocks (norms that scale by `1 + w` before and after the
## attention and the feed-forward layer, a GeGLU feed-forward layer, the embedding
## multiplied by sqrt(D) and used as the output layer) with RMS norms of each head's
## queries and keys before rotary, and sliding-window attention on the first block of
## each pair with a rotary base of its own (10000 there, 1000000 on the others). It
## exports to llama.cpp as `gemma3`, which runs the windows and the two bases on the
## blocks the file names:
##
##     shapescript export examples/architectures/gemma3.ss --gguf gemma3.gguf

## Number of tokens in the vocabulary.
dim V = 64
## Longest sequence the positions allow.
dim P = 64
## Width of each token.
dim D = 32
## Number of query heads.
dim H = 4
## Number of key and value heads, each shared by H / Hkv query heads.
dim Hkv = 2
## Query heads per key and value head.
dim R = H / Hkv
## Width of each head.
dim Dh = D / H
## Half the width of a head.
dim Dr = Dh / 2
## Hidden width of the feed-forward layer.
dim F = 64
## Number of blocks, in pairs: a windowed one, then one that sees every past token.
dim L = 2
dim Pairs = L / 2
## The attention window of the windowed blocks.
dim W = 6

## The norms' epsilon.
const eps = 1e-6
## The rotary bases of the windowed blocks and of the others.
const local_base = 10000.0
const global_base = 1000000.0

## The weights of every block are stacked along a leading axis L. A norm's weight `w`
## scales by `1 + w`.
model Gemma3:
    param embed: [V D] = normal(std=0.5)
    param attn_norm: [L D] = normal(std=0.1)
    param wq: [L H*Dh D] = normal(std=0.2)
    param wk: [L Hkv*Dh D] = normal(std=0.2)
    param wv: [L Hkv*Dh D] = normal(std=0.2)
    ## The scales of each head's query and key norms.
    param q_norm: [L Dh] = normal(std=0.1)
    param k_norm: [L Dh] = normal(std=0.1)
    param wo: [L D H*Dh] = normal(std=0.2)
    param post_attn_norm: [L D] = normal(std=0.1)
    param mlp_norm: [L D] = normal(std=0.1)
    param w_gate: [L F D] = normal(std=0.2)
    param w_up: [L F D] = normal(std=0.2)
    param w_down: [L D F] = normal(std=0.2)
    param post_mlp_norm: [L D] = normal(std=0.1)
    param norm: [D] = normal(std=0.1)

## Each head's first half and second half turned as pairs (j, j + Dh/2), by
## pos * base^(-2j/Dh).
fn rotary(x: [b h n Dh], pos: [b n] Index[P], base: float) -> [b h n Dh]:
    freq = 1.0 / base ** ((arange[Dr] to f32) * (2.0 / Dh))
    angle = (pos to f32) * freq
    c = cos(angle)
    s = sin(angle)
    halves = rearrange(x, b h n (two Dr) -> two b h n Dr, two=2)
    turned = stack((halves[0] * c - halves[1] * s, halves[0] * s + halves[1] * c))
    return rearrange(turned, two b h n Dr -> b h n (two Dr))

## The queries, keys and values of block l: each head's queries and keys normed, then
## turned by rotary with `base`; each key and value head repeated for the R query heads
## it serves.
fn project(m: Gemma3, x: [b n D], pos: [b n] Index[P], l: int, base: float) -> ([b H n Dh], [b H n Dh], [b H n Dh]):
    h = rms_norm(x, over=D, weight=1.0 + m.attn_norm[l], eps=eps)
    q = linear(h, m.wq[l]) |> rearrange(b n (H Dh) -> b H n Dh)
    k = linear(h, m.wk[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh)
    v = linear(h, m.wv[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh)
    q = rms_norm(q, over=Dh, weight=1.0 + m.q_norm[l], eps=eps) |> rotary(pos, base)
    k = rms_norm(k, over=Dh, weight=1.0 + m.k_norm[l], eps=eps) |> rotary(pos, base)
    return q, repeat(k, b Hkv n Dh -> b (Hkv R) n Dh), repeat(v, b Hkv n Dh -> b (Hkv R) n Dh)

## The attention's output projection of block l, normed.
fn attention_out(m: Gemma3, y: [b H n Dh], l: int) -> [b n D]:
    out = linear(rearrange(y, b H n Dh -> b n (H Dh)), m.wo[l])
    return rms_norm(out, over=D, weight=1.0 + m.post_attn_norm[l], eps=eps)

## Sliding-window self-attention of block l, with the local rotary base.
fn local_attention(m: Gemma3, x: [b n D], pos: [b n] Index[P], l: int) -> [b n D]:
    q, k, v = project(m, x, pos, l, local_base)
    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n](window=W))
    return attention_out(m, y, l)

## Causal self-attention of block l, over every past token, with the global base.
fn global_attention(m: Gemma3, x: [b n D], pos: [b n] Index[P], l: int) -> [b n D]:
    q, k, v = project(m, x, pos, l, global_base)
    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
    return attention_out(m, y, l)

## The GeGLU feed-forward layer of block l, its output normed.
fn feed_forward(m: Gemma3, x: [b n D], l: int) -> [b n D]:
    h = rms_norm(x, over=D, weight=1.0 + m.mlp_norm[l], eps=eps)
    gate = gelu(linear(h, m.w_gate[l]), approximate="tanh")
    out = linear(gate * linear(h, m.w_up[l]), m.w_down[l])
    return rms_norm(out, over=D, weight=1.0 + m.post_mlp_norm[l], eps=eps)

## The scores of the next token after each position.
fn forward(m: Gemma3, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed) * (D ** 0.5)
    for p in 0..Pairs:
        x = x + local_attention(m, x, pos, 2 * p)
        x = x + feed_forward(m, x, 2 * p)
        x = x + global_attention(m, x, pos, 2 * p + 1)
        x = x + feed_forward(m, x, 2 * p + 1)
    return x |> rms_norm(over=D, weight=1.0 + m.norm, eps=eps) |> linear(m.embed)
