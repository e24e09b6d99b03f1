## Exported functions that keep every export rule: tensor parameters with shapes, host
## scalars with defaults, externs into torch, `map` over a dim, `if` on a tensor that
## assigns in both branches, and `for` over a range.

dim D = 8
dim H = 2
dim L = 2

extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"

fn helper(x: [b n D]) -> [b n D] = gelu(x)

export fn forward(x: [b n D], w: [L D D], scale: float = 0.5, steps: int = 2) -> [b n D]:
    for l in 0..L:
        x = helper(x @ w[l]) * scale
    if sum(x) > 0.0:
        y = x
    else:
        y = -x
    return y

export fn tails(x: [n D]) -> [n D] NonNeg = erfc(x)

export fn per_head(x: [n H]) -> [H n] = H |> map(h => rearrange(x, n h -> h n)[h])

export fn constant() -> [D] = zeros[D]

export fn masked(q: [b H n D]) -> [b H n D]:
    return scaled_dot_product_attention(q, q, q, attn_mask=causal[n n])

export fn flagged(x: [n D], flip: bool = false) -> [n D]:
    if flip:
        return -x
    return x
