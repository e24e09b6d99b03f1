## Planted bug: transposed head 3.

dim D = 6
dim C = 2

fn head(x: [b D], w: [C D]) -> [b C] = x @ w   #~ E0401
