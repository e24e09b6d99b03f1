## GPT-2 with separate query, key and value projections (each with a bias), where
## llama.cpp's gpt2 reads one fused projection: the export fuses them.

## Number of tokens in the vocabulary.
dim V = 64
## Number of positions the model has an embedding for.
dim P = 64
## Width of each token.
dim D = 32
## Number of attention heads.
dim H = 4
## Width of each head.
dim Dh = D / H
## Hidden width of the feed-forward layer.
dim F = 4 * D
## Number of blocks.
dim L = 2

## The layer norms' epsilon.
const eps = 1e-5

model GPT2:
    param embed: [V D] = normal(std=0.5)
    param pos_embed: [P D] = normal(std=0.2)
    param ln1_w: [L D] = ones
    param ln1_b: [L D] = zeros
    param wq: [L D D] = normal(std=0.2)
    param bq: [L D] = normal(std=0.1)
    param wk: [L D D] = normal(std=0.2)
    param bk: [L D] = normal(std=0.1)
    param wv: [L D D] = normal(std=0.2)
    param bv: [L D] = normal(std=0.1)
    param w_o: [L D D] = normal(std=0.2)
    param b_o: [L D] = zeros
    param ln2_w: [L D] = ones
    param ln2_b: [L D] = zeros
    param w_fc: [L F D] = normal(std=0.2)
    param b_fc: [L F] = zeros
    param w_proj: [L D F] = normal(std=0.1)
    param b_proj: [L D] = zeros
    param ln_f_w: [D] = ones
    param ln_f_b: [D] = zeros

## Causal self-attention of block l.
fn attention(m: GPT2, x: [b n D], l: int) -> [b n D]:
    h = layer_norm(x, over=D, weight=m.ln1_w[l], bias=m.ln1_b[l], eps=eps)
    q = linear(h, m.wq[l], m.bq[l]) |> rearrange(b n (H Dh) -> b H n Dh)
    k = linear(h, m.wk[l], m.bk[l]) |> rearrange(b n (H Dh) -> b H n Dh)
    v = linear(h, m.wv[l], m.bv[l]) |> rearrange(b n (H Dh) -> b H n Dh)
    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
    return linear(rearrange(y, b H n Dh -> b n (H Dh)), m.w_o[l], m.b_o[l])

## The feed-forward layer of block l.
fn feed_forward(m: GPT2, x: [b n D], l: int) -> [b n D]:
    h = layer_norm(x, over=D, weight=m.ln2_w[l], bias=m.ln2_b[l], eps=eps)
    h = gelu(linear(h, m.w_fc[l], m.b_fc[l]), approximate="tanh")
    return linear(h, m.w_proj[l], m.b_proj[l])

## The scores of the next token after each position.
fn forward(m: GPT2, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed) + embedding(pos, m.pos_embed)
    for l in 0..L:
        x = x + attention(m, x, l)
        x = x + feed_forward(m, x, l)
    return x |> layer_norm(over=D, weight=m.ln_f_w, bias=m.ln_f_b, eps=eps) |> linear(m.embed)
