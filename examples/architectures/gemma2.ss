## A small Gemma 2: Gemma (the embedding multiplied by sqrt(D), RMS norms that scale by
## `1 + w`, rotary on the halves of each head, a GeGLU feed-forward layer, the embedding
## as the output layer) with norms of the attention's and the feed-forward layer's
## outputs too, and sliding-window attention on every other block (the first of each
## pair). It exports to llama.cpp as `gemma2`, which runs the windows on the blocks the
## file names:
##
##     shapescript export examples/architectures/gemma2.ss --gguf gemma2.gguf
##
## Gemma 2 also soft-caps its attention scores and its logits (`tanh(s / c) * c`); the
## serving form has neither (an engine computes attention and takes the output layer's
## logits as they are), so this model has none, as a Gemma 2 configured without them.

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
## The rotary embedding's base.
const rope_base = 10000.0

## The weights of every block are stacked along a leading axis L. A norm's weight `w`
## scales by `1 + w`.
model Gemma2:
    param embed: [V D] = normal(std=0.5)
    param attn_norm: [L D] = normal(std=0.1)
    param wq: [L H*Dh D] = normal(std=0.2)
    param wk: [L Hkv*Dh D] = normal(std=0.2)
    param wv: [L Hkv*Dh D] = normal(std=0.2)
    param wo: [L D H*Dh] = normal(std=0.2)
    param post_attn_norm: [L D] = normal(std=0.1)
    param mlp_norm: [L D] = normal(std=0.1)
    param w_gate: [L F D] = normal(std=0.2)
    param w_up: [L F D] = normal(std=0.2)
    param w_down: [L D F] = normal(std=0.2)
    param post_mlp_norm: [L D] = normal(std=0.1)
    param norm: [D] = normal(std=0.1)

## Each head's first half and second half turned as pairs (j, j + Dh/2).
fn rotary(x: [b h n Dh], pos: [b n] Index[P]) -> [b h n Dh]:
    freq = 1.0 / rope_base ** ((arange[Dr] to f32) * (2.0 / Dh))
    angle = (pos to f32) * freq
    c = cos(angle)
    s = sin(angle)
    halves = rearrange(x, b h n (two Dr) -> two b h n Dr, two=2)
    turned = stack((halves[0] * c - halves[1] * s, halves[0] * s + halves[1] * c))
    return rearrange(turned, two b h n Dr -> b h n (two Dr))

## The queries, keys and values of block l, turned by rotary, each key and value head
## repeated for the R query heads it serves.
fn project(m: Gemma2, x: [b n D], pos: [b n] Index[P], l: int) -> ([b H n Dh], [b H n Dh], [b H n Dh]):
    h = rms_norm(x, over=D, weight=1.0 + m.attn_norm[l], eps=eps)
    q = linear(h, m.wq[l]) |> rearrange(b n (H Dh) -> b H n Dh) |> rotary(pos)
    k = linear(h, m.wk[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh) |> rotary(pos)
    v = linear(h, m.wv[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh)
    return q, repeat(k, b Hkv n Dh -> b (Hkv R) n Dh), repeat(v, b Hkv n Dh -> b (Hkv R) n Dh)

## The attention's output projection of block l, normed.
fn attention_out(m: Gemma2, y: [b H n Dh], l: int) -> [b n D]:
    out = linear(rearrange(y, b H n Dh -> b n (H Dh)), m.wo[l])
    return rms_norm(out, over=D, weight=1.0 + m.post_attn_norm[l], eps=eps)

## Sliding-window self-attention of block l.
fn local_attention(m: Gemma2, x: [b n D], pos: [b n] Index[P], l: int) -> [b n D]:
    q, k, v = project(m, x, pos, l)
    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n](window=W))
    return attention_out(m, y, l)

## Causal self-attention of block l, over every past token.
fn global_attention(m: Gemma2, x: [b n D], pos: [b n] Index[P], l: int) -> [b n D]:
    q, k, v = project(m, x, pos, l)
    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
    return attention_out(m, y, l)

## The GeGLU feed-forward layer of block l, its output normed.
fn feed_forward(m: Gemma2, x: [b n D], l: int) -> [b n D]:
    h = rms_norm(x, over=D, weight=1.0 + m.mlp_norm[l], eps=eps)
    gate = gelu(linear(h, m.w_gate[l]), approximate="tanh")
    out = linear(gate * linear(h, m.w_up[l]), m.w_down[l])
    return rms_norm(out, over=D, weight=1.0 + m.post_mlp_norm[l], eps=eps)

## The scores of the next token after each position.
fn forward(m: Gemma2, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed) * (D ** 0.5)
    for p in 0..Pairs:
        x = x + local_attention(m, x, pos, 2 * p)
        x = x + feed_forward(m, x, 2 * p)
        x = x + global_attention(m, x, pos, 2 * p + 1)
        x = x + feed_forward(m, x, 2 * p + 1)
    return x |> rms_norm(over=D, weight=1.0 + m.norm, eps=eps) |> linear(m.embed)
