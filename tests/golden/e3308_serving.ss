# check --vllm: the serving rules of `forward` (E3308)
dim V = 32
dim D = 16
dim H = 2

model Tiny:
    param embed: [V D]
    param wqkv: [3*D D]
    param output: [V D]

fn forward(m: Tiny, ids: [b n] Index[V], window: int = 8) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    qkv = linear(x, m.wqkv) |> rearrange(b n (three h e) -> three b h n e, three=3, h=H)
    y = scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=causal[n n](window=window))  #~ E3308
    a: [b n D] = rearrange(y, b h n e -> b n (h e))
    return linear(x + a, m.output)
