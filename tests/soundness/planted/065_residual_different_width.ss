## Planted bug: residual different width.

dim D = 8
dim F = 16

fn block(x: [b F], w: [F D]) -> [b D] = x @ w + x   #~ E0402
