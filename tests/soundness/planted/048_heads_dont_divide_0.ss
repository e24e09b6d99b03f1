## Planted bug: heads dont divide 0.

dim D = 10
dim H = 4

fn split_heads(x: [b n D]) -> [b H n D/H] = rearrange(x, b n (h d) -> b h n d, h=H)   #~ E0604
