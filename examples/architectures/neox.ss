## A small GPT-NeoX (Pythia): layer norms with biases, one fused query, key and value
## projection whose rows are grouped by head, rotary embeddings on the first quarter of
## each head's features (on their halves), attention and the feed-forward layer side by
## side on the same input (a parallel residual), and an output layer of its own. It
## exports to llama.cpp as `gptneox`, which holds the fused rows grouped by kind:
##
##     shapescript export examples/architectures/neox.ss --gguf neox.gguf

## Number of tokens in the vocabulary.
dim V = 64
## Longest sequence the positions allow.
dim P = 64
## Width of each token.
dim D = 64
## Number of heads.
dim H = 4
## Width of each head.
dim Dh = D / H
## The features of a head that rotary turns: a quarter (Pythia's rotary_pct = 0.25).
dim Drot = Dh / 4
## Half of them, each turned with its partner in the other half.
dim Dq = Drot / 2
## Hidden width of the feed-forward layer.
dim F = 128
## Number of blocks.
dim L = 2

## The norms' epsilon.
const eps = 1e-5
## The rotary embedding's base.
const rope_base = 10000.0

## The weights of every block are stacked along a leading axis L.
model NeoX:
    param embed: [V D] = normal(std=0.5)
    param ln1_w: [L D] = ones
    param ln1_b: [L D] = zeros
    ## The fused projection: for each head, its query, key and value rows.
    param w_qkv: [L 3*D D] = normal(std=0.15)
    param b_qkv: [L 3*D] = normal(std=0.05)
    param w_o: [L D D] = normal(std=0.15)
    param b_o: [L D] = normal(std=0.05)
    param ln2_w: [L D] = ones
    param ln2_b: [L D] = zeros
    param w_up: [L F D] = normal(std=0.15)
    param b_up: [L F] = normal(std=0.05)
    param w_down: [L D F] = normal(std=0.15)
    param b_down: [L D] = normal(std=0.05)
    param ln_f_w: [D] = ones
    param ln_f_b: [D] = zeros
    param output: [V D] = normal(std=0.3)

## The first Drot features of each head turned as pairs (j, j + Drot/2); the rest as
## they are. A slice by label, `x[Dh=a..b]`, cuts the features of each head.
fn rotary(x: [b h n Dh], pos: [b n] Index[P]) -> [b h n Dh]:
    freq = 1.0 / rope_base ** ((arange[Dq] to f32) * (2.0 / Drot))
    angle = (pos to f32) * freq
    c = cos(angle)
    s = sin(angle)
    lo = x[Dh=0..Dq]
    hi: [b h n Dq] = x[Dh=Dq..Drot]
    turned: [b h n Drot] = concat((lo * c - hi * s, hi * c + lo * s), over=Dq)
    return concat((turned, x[Dh=Drot..Dh]), over=Drot)

## Causal self-attention of block l.
fn attention(m: NeoX, x: [b n D], pos: [b n] Index[P], l: int) -> [b n D]:
    h = layer_norm(x, over=D, weight=m.ln1_w[l], bias=m.ln1_b[l], eps=eps)
    qkv = linear(h, m.w_qkv[l], m.b_qkv[l]) |> rearrange(b n (H three Dh) -> three b H n Dh, three=3)
    q = rotary(qkv[0], pos)
    k = rotary(qkv[1], pos)
    y = scaled_dot_product_attention(q, k, qkv[2], attn_mask=causal[n n])
    return linear(rearrange(y, b H n Dh -> b n (H Dh)), m.w_o[l], m.b_o[l])

## The feed-forward layer of block l.
fn feed_forward(m: NeoX, x: [b n D], l: int) -> [b n D]:
    h = layer_norm(x, over=D, weight=m.ln2_w[l], bias=m.ln2_b[l], eps=eps)
    return linear(gelu(linear(h, m.w_up[l], m.b_up[l]), approximate="tanh"), m.w_down[l], m.b_down[l])

## The scores of the next token after each position.
fn forward(m: NeoX, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    for l in 0..L:
        x = x + attention(m, x, pos, l) + feed_forward(m, x, l)
    return x |> layer_norm(over=D, weight=m.ln_f_w, bias=m.ln_f_b, eps=eps) |> linear(m.output)
