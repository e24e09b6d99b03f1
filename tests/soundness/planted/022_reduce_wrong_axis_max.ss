## Planted bug: reduce wrong axis max.

dim D = 8

fn pool(x: [b n D]) -> [b D] = max(x, over=D)   #~ E0401
