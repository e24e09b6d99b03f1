# check --vllm: the serving rules of `forward` (E3307)
dim V = 32
dim D = 16
dim H = 4
dim Hkv = 2
dim R = H / Hkv
dim Dh = D / H

model Tiny:
    param embed: [V D]
    param wq: [H*Dh D]
    param wk: [Hkv*Dh D]
    param wv: [Hkv*Dh D]
    param output: [V D]

fn forward(m: Tiny, ids: [b n] Index[V]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    q = linear(x, m.wq) |> rearrange(b n (H Dh) -> b H n Dh)
    k = linear(x, m.wk) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh)
    v = linear(x, m.wv) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh)
    k = repeat(k, b Hkv n Dh -> b (R Hkv) n Dh)
    v = repeat(v, b Hkv n Dh -> b (R Hkv) n Dh)
    y = scaled_dot_product_attention(q, k, v, attn_mask=causal[n n])  #~ E3307
    a: [b n D] = rearrange(y, b H n Dh -> b n (H Dh))
    return linear(x + a, m.output)
