## Dynamic shapes from the signature's types.
dim D = 8

## A derived dim: `16gh` is 16 * gh.
export fn patches(x: [b 16gh]) -> [b gh 16]:
    return rearrange(x, b (gh p) -> b gh p, p=16)

## `(gh 16)` is 16 * gh too, and `n+1` is n + 1.
export fn shifted(x: [b (gh 16)], pos: [n+1 D], t: [n D]) -> [n D]:
    return (pos[1..n+1] as [n D]) + t

## A size that isn't linear in one axis, `(h w)`, is Dim.AUTO.
export fn flatten(img: [h w], flat: [(h w)]) -> [(h w)]:
    return rearrange(img, h w -> (h w)) + flat

## A scalar parameter with a default is fixed at it.
export fn scale(x: [b n D], factor = 3.0, shift: int = 2) -> [b n D]:
    return x * factor + shift

## A matmul with a transposed operand: with backed_size_oblivious torch still refuses
## n = 1 here, so the export traces again without it, and n = 1 runs.
export fn gram(x: [b n D]) -> [b n n]:
    return x @ rearrange(x, b n d -> b d n)
