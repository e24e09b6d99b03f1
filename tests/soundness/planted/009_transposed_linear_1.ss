## Planted bug: transposed linear 1.

dim D = 16
dim F = 4

fn proj(x: [b D], w: [D F]) -> [b F] = linear(x, w)   #~ E0401
