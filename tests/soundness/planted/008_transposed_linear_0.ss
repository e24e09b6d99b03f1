## Planted bug: transposed linear 0.

dim D = 8
dim F = 32

fn proj(x: [b D], w: [D F]) -> [b F] = linear(x, w)   #~ E0401
