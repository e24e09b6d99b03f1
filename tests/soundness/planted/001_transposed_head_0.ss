## Planted bug: transposed head 0.

dim D = 8
dim C = 3

fn head(x: [b D], w: [C D]) -> [b C] = x @ w   #~ E0401
