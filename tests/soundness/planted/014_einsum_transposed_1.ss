## Planted bug: einsum transposed 1.

dim D = 16
dim N = 3

fn mix(x: [b D], w: [D N]) -> [b N] = einsum(x, w: b D, N D -> b N)   #~ E0605
