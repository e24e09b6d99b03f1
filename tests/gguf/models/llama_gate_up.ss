## A Llama whose feed-forward layer's gate and up projections are one matrix
## `[gate; up]` (as Phi-3 keeps them), with heads wider than D / H (so it isn't Phi-3,
## whose heads are D / H wide): llama.cpp's llama reads gate and up separately, so the
## export splits the matrix.

dim V = 64
dim P = 64
dim D = 32
dim H = 4
dim Hkv = 2
dim R = H / Hkv
dim Dh = 16
dim Dr = Dh / 2
dim F = 64
dim L = 2

model Llama:
    param embed: [V D] = normal(std=0.5)
    param attn_norm: [L D] = ones
    param wq: [L H*Dh D] = normal(std=0.2)
    param wk: [L Hkv*Dh D] = normal(std=0.2)
    param wv: [L Hkv*Dh D] = normal(std=0.2)
    param wo: [L D H*Dh] = normal(std=0.2)
    param mlp_norm: [L D] = ones
    ## The gate's rows, then the up projection's.
    param w_gate_up: [L 2*F D] = normal(std=0.2)
    param w_down: [L D F] = normal(std=0.2)
    param norm: [D] = ones
    param output: [V D] = normal(std=0.5)

## Each head's first half and second half turned as pairs (j, j + Dh/2).
fn rotary(x: [b h n Dh], pos: [b n] Index[P]) -> [b h n Dh]:
    freq = 1.0 / 10000.0 ** ((arange[Dr] to f32) * (2.0 / Dh))
    angle = (pos to f32) * freq
    c = cos(angle)
    s = sin(angle)
    halves = rearrange(x, b h n (two Dr) -> two b h n Dr, two=2)
    turned = stack((halves[0] * c - halves[1] * s, halves[0] * s + halves[1] * c))
    return rearrange(turned, two b h n Dr -> b h n (two Dr))

fn attention(m: Llama, x: [b n D], pos: [b n] Index[P], l: int) -> [b n D]:
    h = rms_norm(x, over=D, weight=m.attn_norm[l], eps=1e-5)
    q = linear(h, m.wq[l]) |> rearrange(b n (H Dh) -> b H n Dh) |> rotary(pos)
    k = linear(h, m.wk[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh) |> rotary(pos)
    v = linear(h, m.wv[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh)
    k = repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)
    v = repeat(v, b Hkv n Dh -> b (Hkv R) n Dh)
    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
    return linear(rearrange(y, b H n Dh -> b n (H Dh)), m.wo[l])

## The SwiGLU feed-forward layer of block l, gate and up from one matrix.
fn feed_forward(m: Llama, x: [b n D], l: int) -> [b n D]:
    h = rms_norm(x, over=D, weight=m.mlp_norm[l], eps=1e-5)
    gate_up = linear(h, m.w_gate_up[l]) |> rearrange(b n (two F) -> two b n F, two=2)
    return linear(silu(gate_up[0]) * gate_up[1], m.w_down[l])

fn forward(m: Llama, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    for l in 0..L:
        x = x + attention(m, x, pos, l)
        x = x + feed_forward(m, x, l)
    return x |> rms_norm(over=D, weight=m.norm, eps=1e-5) |> linear(m.output)
