## Causal self-attention, exported with dynamic batch and sequence sizes:
##
##     shapescript export examples/attention.ss --fn causal_attention -o attn.pt2
##
## The program takes `x`, `w_qkv` and `w_o`, for any batch size `b` and length `n`.

## Width of each token.
dim D = 64
## Number of attention heads.
dim H = 4
## The features of all heads together: `D` wide, but not the token's width, so `w_o`
## used the wrong way round is an error, not a silent transpose.
dim A ~ D

## Each token attends to itself and to the tokens before it.
export fn causal_attention(x: [b n D], w_qkv: [D 3*A], w_o: [A D]) -> [b n D]:
    qkv = rearrange(x @ w_qkv, b n (three h e) -> three b h n e, three=3, h=H)
    y = scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=causal[n n])
    return rearrange(y, b h n e -> b n (h e)) @ w_o
