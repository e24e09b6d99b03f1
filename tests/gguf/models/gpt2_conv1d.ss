## A GPT-2 whose weights are `[in out]`, multiplied as `x @ w` (as Hugging Face's GPT-2
## keeps them, in `Conv1D`), with an output layer of its own: the export writes each
## matrix transposed, as llama.cpp's `[out in]`.

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
    param ln_1_w: [L D] = ones
    param ln_1_b: [L D]
    param c_attn: [L D 3*D] = normal(std=0.2)
    param c_attn_b: [L 3*D]
    param c_proj: [L D D] = normal(std=0.2)
    param c_proj_b: [L D]
    param ln_2_w: [L D] = ones
    param ln_2_b: [L D]
    param c_fc: [L D F] = normal(std=0.2)
    param c_fc_b: [L F]
    param mlp_proj: [L F D] = normal(std=0.1)
    param mlp_proj_b: [L D]
    param ln_f_w: [D] = ones
    param ln_f_b: [D]
    param lm_head: [V D] = normal(std=0.5)

fn block(m: Gpt2, x: [b n D], l: int) -> [b n D]:
    h = layer_norm(x, over=D, weight=m.ln_1_w[l], bias=m.ln_1_b[l], eps=1e-5)
    qkv = (h @ m.c_attn[l] + m.c_attn_b[l]) |> rearrange(b n (three H Dh) -> three b H n Dh, three=3)
    y = scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=causal[n n])
    x = x + rearrange(y, b H n Dh -> b n (H Dh)) @ m.c_proj[l] + m.c_proj_b[l]
    h = layer_norm(x, over=D, weight=m.ln_2_w[l], bias=m.ln_2_b[l], eps=1e-5)
    h = gelu(h @ m.c_fc[l] + m.c_fc_b[l], approximate="tanh")
    return x + h @ m.mlp_proj[l] + m.mlp_proj_b[l]

fn forward(m: Gpt2, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.wte) + embedding(pos, m.wpe)
    for l in 0..L:
        x = block(m, x, l)
    return x |> layer_norm(over=D, weight=m.ln_f_w, bias=m.ln_f_b, eps=1e-5) |> linear(m.lm_head)
