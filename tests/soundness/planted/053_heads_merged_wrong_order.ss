## Planted bug: heads merged wrong order.

dim H = 4
dim Dh = 8

fn merge(x: [b H n Dh]) -> [b n H*Dh] = rearrange(x, b h n d -> b h (n d))   #~ E0401
