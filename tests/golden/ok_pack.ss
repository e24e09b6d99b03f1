## pack and unpack: einops' pack/unpack, the packed axis a size expression.

dim D = 16
dim N = 4

fn with_cls(cls: [b D], patches: [b h w D]) -> [b 1 + h*w D] = pack((cls, patches), b * D)

fn first_and_rest(x: [b N+1 D]) -> ([b D], [b N D]) = unpack(x, b * D -> b D, b N D)

fn head_tail(x: [b n D]) -> ([b D], [b ?m D], [b D]):
    first, middle, last = x |> unpack(b * D -> b D, b m D, b D)
    return first, middle, last

fn grid(x: [b n D]) -> [b ?k 2 D]:
    return unpack(x, b * D -> b k two D, two=2)[0]
