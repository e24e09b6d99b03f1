## Planted bug: labels without bound.

dim C = 5

fn loss(logits: [b C], y: [b] i64) -> [] = cross_entropy(logits, y, over=C)   #~ E0701
