## Planted bug: heads dont divide 1.

dim D = 12
dim H = 5

fn split_heads(x: [b n D]) -> [b H n D/H] = rearrange(x, b n (h d) -> b h n d, h=H)   #~ E0604
