## Planted bug: repeat kv wrong factor.

dim R = 2

fn rep(k: [b h n d]) -> [b h*3 n d] = repeat(k, b h n d -> b (h R) n d)   #~ E0401
