## Planted bug: transposed head 1.

dim D = 16
dim C = 4

fn head(x: [b D], w: [C D]) -> [b C] = x @ w   #~ E0401
