## Planted bug: reduce batch axis mean.

dim D = 8

fn pool(x: [b n D]) -> [n D] = mean(x, over=n)   #~ E0401
