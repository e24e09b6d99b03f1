## A Llama whose forward function reads its fields in another order than llama.cpp's
## (values before keys, up before gate), with the output layer tied to the embedding.

dim V = 64
dim P = 64
dim D = 32
dim H = 4
dim Hkv = 2
dim R = H / Hkv
dim Dh = D / H
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
    param w_gate: [L F D] = normal(std=0.2)
    param w_up: [L F D] = normal(std=0.2)
    param w_down: [L D F] = normal(std=0.2)
    param norm: [D] = ones

## Each head's first half and second half turned as pairs (j, j + Dh/2).
fn rotary(x: [b h n Dh], pos: [b n] Index[P]) -> [b h n Dh]:
    freq = exp((arange[Dr] to f32) * (-2.0 * 13.122363377404328 / Dh))
    angle = (pos to f32) * freq
    c = cos(angle)
    s = sin(angle)
    halves = rearrange(x, b h n (two Dr) -> two b h n Dr, two=2)
    turned = stack((halves[0] * c - halves[1] * s, halves[0] * s + halves[1] * c))
    return rearrange(turned, two b h n Dr -> b h n (two Dr))

fn attention(m: Llama, x: [b n D], pos: [b n] Index[P], l: int) -> [b n D]:
    h = rms_norm(x, over=D, weight=m.attn_norm[l], eps=1e-6)
    q = linear(h, m.wq[l]) |> rearrange(b n (H Dh) -> b H n Dh) |> rotary(pos)
    v = linear(h, m.wv[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh)
    k = linear(h, m.wk[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh) |> rotary(pos)
    k = repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)
    v = repeat(v, b Hkv n Dh -> b (Hkv R) n Dh)
    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])
    return linear(rearrange(y, b H n Dh -> b n (H Dh)), m.wo[l])

fn forward(m: Llama, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    for l in 0..L:
        x = x + attention(m, x, pos, l)
        h = rms_norm(x, over=D, weight=m.mlp_norm[l], eps=1e-6)
        up = linear(h, m.w_up[l])
        x = x + linear(silu(linear(h, m.w_gate[l])) * up, m.w_down[l])
    return x |> rms_norm(over=D, weight=m.norm, eps=1e-6) |> linear(m.embed)
