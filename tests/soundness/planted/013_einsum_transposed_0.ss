## Planted bug: einsum transposed 0.

dim D = 8
dim N = 4

fn mix(x: [b D], w: [D N]) -> [b N] = einsum(x, w: b D, N D -> b N)   #~ E0605
