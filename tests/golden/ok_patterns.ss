## Patterns written bare: rearrange, reduce, repeat and einsum, with groups, literals,
## keyword sizes, `...` and dims.

dim S = 16
dim P = 4
dim N = (S / P) * (S / P)
dim H = 4
dim R = 2

fn patchify(img: [b 1 S S]) -> [b N P*P]:
    return img |> rearrange(b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c), p1=P, p2=P)

fn brightest(img: [b c h w]) -> [b] = reduce(img, b c h w -> b, max)

fn row_means(x: [b h w]) -> [b h] = reduce(x, b h w -> b h, mean)

fn heads(x: [b n 3*D]) -> [3 b H n D/H]:
    return rearrange(x, b n (three h d) -> three b h n d, three=3, h=H)

fn grow_heads(k: [b Hkv n Dh]) -> [b Hkv*R n Dh] = repeat(k, b Hkv n Dh -> b (Hkv R) n Dh)

fn tile(x: [n]) -> [n 3] = repeat(x, n -> n k, k=3)

fn contract(a: [b N D], w: [N Dt]) -> [b Dt D] = einsum(a, w: b N D, N Dt -> b Dt D)

fn trace_like(a: [n m], b: [m n]) -> [] = einsum(a, b: i j, j i -> )

fn last_two(x: [... h w]) -> [... w h] = rearrange(x, ... h w -> ... w h)

fn unit_axis(x: [b n]) -> [b 1 n] = rearrange(x, b n -> b 1 n)

fn drop_unit(x: [b 1 n]) -> [b n] = rearrange(x, b 1 n -> b n)

fn halves(x: [b n D]) -> [b n D/2]:
    parts = rearrange(x, b n (k two) -> two b n k, two=2)
    w = arange[D/2] to f32
    return parts[0] * w
