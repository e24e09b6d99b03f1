## A small StarCoder2: layer norms with biases, biases on every projection, rotary
## embeddings on the halves of each head, grouped-query attention, a feed-forward
## layer with GELU (tanh), and the embedding as the output layer. It exports to
## llama.cpp as `starcoder2`:
##
##     shapescript export examples/architectures/starcoder2.ss --gguf starcoder2.gguf

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

## The norms' epsilon.
const eps = 1e-5
## The rotary embedding's base.
const rope_base = 100000.0

## The weights of every block are stacked along a leading axis L.
model StarCoder2:
    param embed: [V D] = normal(std=0.5)
    param ln1_w: [L D] = ones
    param ln1_b: [L D] = zeros
    param wq: [L H*Dh D] = normal(std=0.2)
    param bq: [L H*Dh] = normal(std=0.05)
    param wk: [L Hkv*Dh D] = normal(std=0.2)
    param bk: [L Hkv*Dh] = normal(std=0.05)
    param wv: [L Hkv*Dh D] = normal(std=0.2)
    param bv: [L Hkv*Dh] = normal(std=0.05)
    param wo: [L D H*Dh] = normal(std=0.2)
    param bo: [L D] = normal(std=0.05)
    param ln2_w: [L D] = ones
    param ln2_b: [L D] = zeros
    param w_fc: [L F D] = normal(std=0.2)
    param b_fc: [L F] = normal(std=0.05)
    param w_proj: [L D F] = normal(std=0.2)
    param b_proj: [L D] = normal(std=0.05)
    param ln_f_w: [D] = ones
    param ln_f_b: [D] = zeros

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
fn attention(m: StarCoder2, x: [b n D], pos: [b n] Index[P], l: int) -> [b n D]:
    h = layer_norm(x, over=D, weight=m.ln1_w[l], bias=m.ln1_b[l], eps=eps)
    q = linear(h, m.wq[l], m.bq[l]) |> rearrange(b n (H Dh) -> b H n Dh) |> rotary(pos)
    k = linear(h, m.wk[l], m.bk[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh) |> rotary(pos)
    v = linear(h, m.wv[l], m.bv[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh)
    k = repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)
    v = repeat(v, b Hkv n Dh -> b (Hkv R) n Dh)
    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
    return linear(rearrange(y, b H n Dh -> b n (H Dh)), m.wo[l], m.bo[l])

## The feed-forward layer of block l.
fn feed_forward(m: StarCoder2, x: [b n D], l: int) -> [b n D]:
    h = layer_norm(x, over=D, weight=m.ln2_w[l], bias=m.ln2_b[l], eps=eps)
    return linear(gelu(linear(h, m.w_fc[l], m.b_fc[l]), approximate="tanh"), m.w_proj[l], m.b_proj[l])

## The scores of the next token after each position.
fn forward(m: StarCoder2, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    for l in 0..L:
        x = x + attention(m, x, pos, l)
        x = x + feed_forward(m, x, l)
    return x |> layer_norm(over=D, weight=m.ln_f_w, bias=m.ln_f_b, eps=eps) |> linear(m.embed)
