## Planted bug: shifted targets misaligned.

dim V = 50

fn lm_loss(logits: [n V], ids: [n] Index[V]) -> [] = cross_entropy(logits[0..n - 1], ids[0..n], over=V)   #~ E0401
