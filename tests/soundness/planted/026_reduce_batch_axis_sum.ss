## Planted bug: reduce batch axis sum.

dim D = 8

fn pool(x: [b n D]) -> [n D] = sum(x, over=n)   #~ E0401
