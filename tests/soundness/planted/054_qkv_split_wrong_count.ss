## Planted bug: qkv split wrong count.

dim D = 16

fn qkv(x: [b n 3*D]) -> [2 b n D] = rearrange(x, b n (three d) -> three b n d, three=3)   #~ E0401
