## Planted bug: float labels to cross entropy.

dim C = 5

fn loss(logits: [b C], y: [b]) -> [] = cross_entropy(logits, y, over=C)   #~ E0404
