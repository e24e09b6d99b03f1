## A GPT-2 whose feed-forward layer computes GELU exactly (with erf): llama.cpp's gpt2
## uses GELU's tanh approximation, so no GGUF architecture computes it.

dim V = 64
dim P = 32
dim D = 32
dim H = 4
dim Dh = D / H
dim F = 4 * D
dim L = 2

model Gpt2:
    param wte: [V D] = normal(std=0.5)
    param wpe: [P D] = normal(std=0.1)
    param ln1_w: [L D] = ones
    param ln1_b: [L D]
    param w_qkv: [L 3*D D] = normal(std=0.2)
    param b_qkv: [L 3*D]
    param w_o: [L D D] = normal(std=0.2)
    param b_o: [L D]
    param ln2_w: [L D] = ones
    param ln2_b: [L D]
    param w_up: [L F D] = normal(std=0.2)
    param b_up: [L F]
    param w_down: [L D F] = normal(std=0.1)
    param b_down: [L D]
    param lnf_w: [D] = ones
    param lnf_b: [D]

fn block(m: Gpt2, x: [b n D], l: int) -> [b n D]:
    h = layer_norm(x, over=D, weight=m.ln1_w[l], bias=m.ln1_b[l], eps=1e-5)
    qkv = linear(h, m.w_qkv[l], m.b_qkv[l]) |> rearrange(b n (three H Dh) -> three b H n Dh, three=3)
    y = scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=causal[n n])
    x = x + linear(rearrange(y, b H n Dh -> b n (H Dh)), m.w_o[l], m.b_o[l])
    h = layer_norm(x, over=D, weight=m.ln2_w[l], bias=m.ln2_b[l], eps=1e-5)
    return x + linear(gelu(linear(h, m.w_up[l], m.b_up[l])), m.w_down[l], m.b_down[l])

fn forward(m: Gpt2, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.wte) + embedding(pos, m.wpe)
    for l in 0..L:
        x = block(m, x, l)
    return x |> layer_norm(over=D, weight=m.lnf_w, bias=m.lnf_b, eps=1e-5) |> linear(m.wte)
