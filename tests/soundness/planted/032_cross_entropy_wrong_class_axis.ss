## Planted bug: cross entropy wrong class axis.

dim C = 5

fn loss(logits: [b C], y: [b] Index[C]) -> [] = cross_entropy(logits, y, over=b)   #~ E0701
