## Planted bug: heads dont divide 2.

dim D = 30
dim H = 8

fn split_heads(x: [b n D]) -> [b H n D/H] = rearrange(x, b n (h d) -> b h n d, h=H)   #~ E0604
