## A small Mistral: the Llama of `llama.ss` with sliding-window attention, each token
## seeing itself and the W - 1 tokens before it, and rotary embeddings that turn the two
## halves of each head (as transformers' Mistral does). A serving engine keeps only the
## last W keys and values of each sequence. `main` trains it for a few steps and saves
## `mistral.safetensors`:
##
##     shapescript run examples/mistral.ss
##     shapescript export examples/mistral.ss --hf mistral_hf --weights mistral.safetensors --vllm

import python torch

## Number of tokens in the vocabulary.
dim V = 64
## Longest sequence the positions allow.
dim P = 128
## Width of each token.
dim D = 64
## Number of query heads.
dim H = 4
## Number of key and value heads, each shared by H / Hkv query heads.
dim Hkv = 2
## Query heads per key and value head.
dim R = H / Hkv
## Width of each head.
dim Dh = D / H
## Half the width of a head: the rotary embedding turns feature i with feature i + Dr.
dim Dr = Dh / 2
## Hidden width of the feed-forward layer.
dim F = 128
## Number of blocks.
dim L = 2
## The attention window: each token sees itself and the W - 1 tokens before it.
dim W = 8

## The norms' epsilon.
const eps = 1e-5
## The rotary embedding's base: features i and i + Dr turn by pos * rope_base^(-2i/Dh).
const rope_base = 10000.0

## The weights of every block are stacked along a leading axis L.
model Mistral:
    ## A token of width D for each token id.
    param embed: [V D] = normal(std=0.02)
    ## The scale of the norm before each attention.
    param attn_norm: [L D] = ones
    ## The query, key, value and output projections, `[out in]` as `linear` takes them.
    param wq: [L H*Dh D] = normal(std=0.05)
    param wk: [L Hkv*Dh D] = normal(std=0.05)
    param wv: [L Hkv*Dh D] = normal(std=0.05)
    param wo: [L D H*Dh] = normal(std=0.05)
    ## The scale of the norm before each feed-forward layer.
    param mlp_norm: [L D] = ones
    ## The feed-forward layer: gate, up and down projections.
    param w_gate: [L F D] = normal(std=0.05)
    param w_up: [L F D] = normal(std=0.05)
    param w_down: [L D F] = normal(std=0.05)
    ## The scale of the final norm.
    param norm: [D] = ones
    ## The output layer, a score for each token id.
    param output: [V D] = normal(std=0.05)

## The cosine and the sine of the angle features i and i + Dr of a head are turned by at
## each position, pos * rope_base^(-2i/Dh), written for both halves. In f32 whatever the
## model's dtype.
fn rotation(pos: [b n] Index[P]) -> ([b n Dh] f32, [b n Dh] f32):
    freq = 1.0 / rope_base ** ((arange[Dr] to f32) * (2.0 / Dh))
    angle = repeat((pos to f32) * freq, b n Dr -> b n (two Dr), two=2)
    return cos(angle), sin(angle)

## Turns features i and i + Dr of every head by their angle: (x0, x1) becomes
## (x0 cos - x1 sin, x1 cos + x0 sin).
fn rotary(x: [b h n Dh], c: [b n Dh] f32, s: [b n Dh] f32) -> [b h n Dh]:
    halves = rearrange(x, b h n (two Dr) -> two b h n Dr, two=2)
    turned: [b h n Dh] = rearrange(stack((-halves[1], halves[0])), two b h n Dr -> b h n (two Dr))
    return x * c + turned * s

## The mask of sliding-window attention over n positions: each sees itself and the w - 1
## before it. A size parameter (`n: Size`) is the size of the generic `n` its type names.
fn window(n: Size, w: Size) -> [n n] Mask = causal[n n](window=w)

## Sliding-window attention of block l; each key and value head serves R query heads.
fn attention(m: Mistral, x: [b n D], c: [b n Dh] f32, s: [b n Dh] f32, l: int) -> [b n D]:
    h = rms_norm(x, over=D, weight=m.attn_norm[l], eps=eps)
    q = linear(h, m.wq[l]) |> rearrange(b n (H Dh) -> b H n Dh) |> rotary(c, s)
    k = linear(h, m.wk[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh) |> rotary(c, s)
    v = linear(h, m.wv[l]) |> rearrange(b n (Hkv Dh) -> b Hkv n Dh)
    k = repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)
    v = repeat(v, b Hkv n Dh -> b (Hkv R) n Dh)
    y = scaled_dot_product_attention(q, k, v, attn_mask=window(n, W))
    return linear(rearrange(y, b H n Dh -> b n (H Dh)), m.wo[l])

## The SwiGLU feed-forward layer of block l.
fn feed_forward(m: Mistral, x: [b n D], l: int) -> [b n D]:
    h = rms_norm(x, over=D, weight=m.mlp_norm[l], eps=eps)
    return linear(silu(linear(h, m.w_gate[l])) * linear(h, m.w_up[l]), m.w_down[l])

## Block l: attention, then the feed-forward layer, each added to its input.
fn block(m: Mistral, x: [b n D], c: [b n Dh] f32, s: [b n Dh] f32, l: int) -> [b n D]:
    x = x + attention(m, x, c, s, l)
    return x + feed_forward(m, x, l)

## The scores of the next token after each position.
fn forward(m: Mistral, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    c, s = rotation(pos)
    for l in 0..L:
        x = block(m, x, c, s, l)
    return x |> rms_norm(over=D, weight=m.norm, eps=eps) |> linear(m.output)

## The mean cross-entropy of the scores against the next tokens.
fn loss(m: Mistral, ids: [b n] Index[V], pos: [b n] Index[P], next: [b n] Index[V]) -> [] NonNeg:
    return cross_entropy(forward(m, ids, pos), next, over=V)

## Training sequences and sequences per batch.
dim Ntrain = 256
dim Batch = 32
## Length of the training sequences: longer than the window.
dim N = 24
## Updates of training.
dim Steps = 80

## Trains the model to continue sequences that count up by a step of 1 to 3 (modulo V),
## which a window of W tokens is enough for, reports its progress and saves it to
## `mistral.safetensors`.
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

    m = Mistral.init(seed=0)
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
    save("mistral.safetensors", m)
    print("saved mistral.safetensors")
