## Planted bug: transposed head 2.

dim D = 32
dim C = 10

fn head(x: [b D], w: [C D]) -> [b C] = x @ w   #~ E0401
