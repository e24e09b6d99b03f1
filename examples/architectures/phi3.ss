## A small Phi-3: RMS norms, one fused query, key and value projection, rotary
## embeddings on the halves of each head, grouped-query attention, and a SwiGLU
## feed-forward layer whose gate and up projections are one matrix. It exports to
## llama.cpp as `phi3`:
##
##     shapescript export examples/architectures/phi3.ss --gguf phi3.gguf

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
## Half the width of a head: the features rotary pairs with the other half.
dim Dr = Dh / 2
## Hidden width of the feed-forward layer.
dim F = 64
## Number of blocks.
dim L = 2
## The fused projection's rows: the queries', then the keys', then the values'.
dim Q = (H + 2 * Hkv) * Dh
## The fused gate and up projection's rows: the gate's, then the up projection's.
dim G = 2 * F

## The norms' epsilon.
const eps = 1e-5
## The rotary embedding's base.
const rope_base = 10000.0

## The weights of every block are stacked along a leading axis L.
model Phi3:
    param embed: [V D] = normal(std=0.5)
    param attn_norm: [L D] = ones
    ## The queries', keys' and values' rows in one matrix, `[out in]`.
    param w_qkv: [L Q D] = normal(std=0.2)
    param wo: [L D H*Dh] = normal(std=0.2)
    param mlp_norm: [L D] = ones
    ## The gate's rows, then the up projection's.
    param w_gate_up: [L G D] = normal(std=0.2)
    param w_down: [L D F] = normal(std=0.2)
    param norm: [D] = ones
    param output: [V D] = normal(std=0.5)

## Each head's first half and second half turned as pairs (j, j + Dh/2).
fn rotary(x: [b h n Dh], pos: [b n] Index[P]) -> [b h n Dh]:
    freq = 1.0 / rope_base ** ((arange[Dr] to f32) * (2.0 / Dh))
    angle = (pos to f32) * freq
    c = cos(angle)
    s = sin(angle)
    halves = rearrange(x, b h n (two Dr) -> two b h n Dr, two=2)
    turned = stack((halves[0] * c - halves[1] * s, halves[0] * s + halves[1] * c))
    return rearrange(turned, two b h n Dr -> b h n (two Dr))

## Causal self-attention of block l.
fn attention(m: Phi3, x: [b n D], pos: [b n] Index[P], l: int) -> [b n D]:
    h = rms_norm(x, over=D, weight=m.attn_norm[l], eps=eps)
    qkv: [b n Q] = linear(h, m.w_qkv[l])
    q, k, v = split(qkv, over=Q, sizes=(H * Dh, Hkv * Dh, Hkv * Dh))
    q = rearrange(q, b n (H Dh) -> b H n Dh) |> rotary(pos)
    k = rearrange(k, b n (Hkv Dh) -> b Hkv n Dh) |> rotary(pos)
    v = rearrange(v, b n (Hkv Dh) -> b Hkv n Dh)
    k = repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)
    v = repeat(v, b Hkv n Dh -> b (Hkv R) n Dh)
    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
    return linear(rearrange(y, b H n Dh -> b n (H Dh)), m.wo[l])

## The SwiGLU feed-forward layer of block l, gate and up in one product.
fn feed_forward(m: Phi3, x: [b n D], l: int) -> [b n D]:
    h = rms_norm(x, over=D, weight=m.mlp_norm[l], eps=eps)
    gate_up: [b n G] = linear(h, m.w_gate_up[l])
    gate, up = split(gate_up, over=G, sizes=(F, F))
    return linear(silu(gate) * up, m.w_down[l])

## The scores of the next token after each position.
fn forward(m: Phi3, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    for l in 0..L:
        x = x + attention(m, x, pos, l)
        x = x + feed_forward(m, x, l)
    return x |> rms_norm(over=D, weight=m.norm, eps=eps) |> linear(m.output)
