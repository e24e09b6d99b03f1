## A derived-dim function for benchmarks/export_time.py: images of any size that is a
## multiple of 16 (`16gh`, `16gw`), one token per 16×16 patch.

## Side of each square patch, in pixels.
dim P = 16
## Width of each token.
dim D = 64

export fn patch_embed(img: [b 3 16gh 16gw], w: [P*P*3 D]) -> [b (gh gw) D]:
    return rearrange(img, b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c), p1=P, p2=P) @ w
