## Planted bug: einsum transposed 2.

dim D = 12
dim N = 5

fn mix(x: [b D], w: [D N]) -> [b N] = einsum(x, w: b D, N D -> b N)   #~ E0605
