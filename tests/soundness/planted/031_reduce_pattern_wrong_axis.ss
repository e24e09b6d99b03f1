## Planted bug: reduce pattern wrong axis.

dim D = 8

fn pool(x: [b n D]) -> [b D] = reduce(x, b n D -> b n, mean)   #~ E0401
