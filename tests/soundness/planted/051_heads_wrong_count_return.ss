## Planted bug: heads wrong count return.

dim D = 16
dim H = 4

fn split_heads(x: [b n D]) -> [b 2 n D/H] = rearrange(x, b n (h d) -> b h n d, h=H)   #~ E0401
