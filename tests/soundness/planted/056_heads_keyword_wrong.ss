## Planted bug: heads keyword wrong.

dim D = 16
dim H = 4

fn split_heads(x: [b n D]) -> [b H n D/H] = rearrange(x, b n (h d) -> b h n d, h=3)   #~ E0604
