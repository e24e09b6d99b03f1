## A small GPT-2: layer norms, learned position embeddings, a fused query, key and value
## projection with biases, and GELU computed with tanh. The output layer is the token
## embedding table, as GPT-2's is. `main` trains it for a few hundred steps to continue
## counting sequences and saves `gpt2.safetensors`:
##
##     shapescript run examples/gpt2.ss
##     shapescript export examples/gpt2.ss --hf gpt2_hf --weights gpt2.safetensors
##     shapescript export examples/gpt2.ss --gguf gpt2.gguf --weights gpt2.safetensors

import python torch

## Number of tokens in the vocabulary.
dim V = 64
## Number of positions the model has an embedding for.
dim P = 128
## Width of each token.
dim D = 64
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

## The weights of every block are stacked along a leading axis L.
model GPT2:
    ## A token of width D for each token id; also the output layer.
    param embed: [V D] = normal(std=0.02)
    ## A vector of width D added for each position.
    param pos_embed: [P D] = normal(std=0.01)
    ## The norm before each attention.
    param ln1_w: [L D] = ones
    param ln1_b: [L D] = zeros
    ## The fused query, key and value projection, `[out in]` as `linear` takes it.
    param w_qkv: [L 3*D D] = normal(std=0.02)
    param b_qkv: [L 3*D] = zeros
    ## The attention's output projection.
    param w_o: [L D D] = normal(std=0.02)
    param b_o: [L D] = zeros
    ## The norm before each feed-forward layer.
    param ln2_w: [L D] = ones
    param ln2_b: [L D] = zeros
    ## The feed-forward layer.
    param w_fc: [L F D] = normal(std=0.02)
    param b_fc: [L F] = zeros
    param w_proj: [L D F] = normal(std=0.02)
    param b_proj: [L D] = zeros
    ## The final norm.
    param ln_f_w: [D] = ones
    param ln_f_b: [D] = zeros

## Causal self-attention of block l.
fn attention(m: GPT2, x: [b n D], l: int) -> [b n D]:
    h = layer_norm(x, over=D, weight=m.ln1_w[l], bias=m.ln1_b[l], eps=eps)
    qkv = linear(h, m.w_qkv[l], m.b_qkv[l]) |> rearrange(b n (three H Dh) -> three b H n Dh, three=3)
    y = scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=causal[n n])
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

## The mean cross-entropy of the scores against the next tokens.
fn loss(m: GPT2, ids: [b n] Index[V], pos: [b n] Index[P], next: [b n] Index[V]) -> [] NonNeg:
    return cross_entropy(forward(m, ids, pos), next, over=V)

## Training sequences and sequences per batch.
dim Ntrain = 256
dim Batch = 32
## Length of the training sequences.
dim N = 16
## Updates of training.
dim Steps = 120

## Trains a GPT-2 to continue sequences that count up by a step of 1 to 3 (modulo V),
## reports its progress and saves it to `gpt2.safetensors`.
fn main():
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(0)
    start = torch.randint(0, V, (Ntrain, 1), generator=g)
    step = torch.randint(1, 4, (Ntrain, 1), generator=g)
    counts = torch.mul(step, torch.arange(N + 1))
    seqs = torch.remainder(torch.add(start, counts), V)
    ids = seqs.narrow(1, 0, N) as [Ntrain N] Index[V]
    next = seqs.narrow(1, 1, N) as [Ntrain N] Index[V]
    pos = torch.arange(N).repeat(Ntrain, 1) as [Ntrain N] Index[P]

    m = GPT2.init(seed=0)
    opt = adamw(m, lr=warmup(10, cosine(Steps - 10, lr=3e-3)))
    step_no = 0
    epochs = Steps // (Ntrain // Batch)
    for epoch in 0..epochs:
        for xb, pb, yb in batches(shuffle((ids, pos, next), seed=epoch), size=Batch):
            l, grads = value_and_grad(loss, m, xb, pb, yb)
            update(m, grads, opt)
            if step_no % 20 == 0:
                report(step_no, loss=l)
            step_no = step_no + 1
    save("gpt2.safetensors", m)
    print("saved gpt2.safetensors")
