## The pattern's input side must have the input's rank.

fn flatten(x: [b c h w]) -> [b (c h w)] = rearrange(x, b h w -> b (h w))   #~ E0603

fn too_long(x: [b n]) -> [b] = reduce(x, b n k -> b, sum)   #~ E0603

fn einsum_rank(a: [n m], w: [m k]) -> [n k] = einsum(a, w: n m, k -> n k)   #~ E0603
