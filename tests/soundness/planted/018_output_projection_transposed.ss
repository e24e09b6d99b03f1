## Planted bug: output projection transposed.

dim D = 16
dim V = 40

fn logits(h: [b n D], wte: [V D]) -> [b n V] = h @ wte   #~ E0401
