## A small Gemma: the token embedding multiplied by sqrt(D), RMS norms that scale by
## `1 + w`, one key and value head shared by every query head, rotary embeddings on the
## halves of each head, a GeGLU feed-forward layer (GELU with tanh on the gate) and the
## embedding as the output layer. It exports to llama.cpp as `gemma`, which holds each
## norm's `1 + w` as its weight:
##
##     shapescript export examples/architectures/gemma.ss --gguf gemma.gguf

## Number of tokens in the vocabulary.
dim V = 64
## Longest sequence the positions allow.
dim P = 64
## Width of each token.
dim D = 32
## Number of query heads.
dim H = 4
## Number of key and value heads: one, shared by every query head.
dim Hkv = 1
## Width of each head.
dim Dh = D / H
## Half the width of a head.
dim Dr = Dh / 2
## Hidden width of the feed-forward layer.
dim F = 64
## Number of blocks.
dim L = 2

## The norms' epsilon.
const eps = 1e-6
## The rotary embedding's base.
const rope_base = 10000.0

## The weights of every block are stacked along a leading axis L. A norm's weight `w`
## scales by `1 + w`, so it starts at zero.
model Gemma:
    param embed: [V D] = normal(std=0.5)
    param attn_norm: [L D] = normal(std=0.1)
    param wq: [L H*Dh D] = normal(std=0.2)
    param wk: [L Hkv*Dh D] = normal(std=0.2)
    param wv: [L Hkv*Dh D] = normal(std=0.2)
    param wo: [L D H*Dh] = normal(std=0.2)
    param mlp_norm: [L D] = normal(std=0.1)
    param w_gate: [L F D] = normal(std=0.2)
    param w_up: [L F D] = normal(std=0.2)
    param w_down: [L D F] = normal(std=0.2)
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

## Causal self-attention of block l; the one key and value head serves every query head.
fn attention(m: Gemma, x: [b n D], pos: [b n] Index[P], l: int) -> [b n D]:
    h = rms_norm(x, over=D, weight=1.0 + m.attn_norm[l], eps=eps)
    q = linear(h, m.wq[l]) |> rearrange(b n (H Dh) -> b H n Dh) |> rotary(pos)
    k = linear(h, m.wk[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh) |> rotary(pos)
    v = linear(h, m.wv[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh)
    k = repeat(k, b Hkv n Dh -> b (Hkv H) n Dh)
    v = repeat(v, b Hkv n Dh -> b (Hkv H) n Dh)
    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
    return linear(rearrange(y, b H n Dh -> b n (H Dh)), m.wo[l])

## The GeGLU feed-forward layer of block l.
fn feed_forward(m: Gemma, x: [b n D], l: int) -> [b n D]:
    h = rms_norm(x, over=D, weight=1.0 + m.mlp_norm[l], eps=eps)
    gate = gelu(linear(h, m.w_gate[l]), approximate="tanh")
    return linear(gate * linear(h, m.w_up[l]), m.w_down[l])

## The scores of the next token after each position.
fn forward(m: Gemma, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed) * (D ** 0.5)
    for l in 0..L:
        x = x + attention(m, x, pos, l)
        x = x + feed_forward(m, x, l)
    return x |> rms_norm(over=D, weight=1.0 + m.norm, eps=eps) |> linear(m.embed)
