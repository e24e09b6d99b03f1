## Planted bug: reduce wrong axis min.

dim D = 8

fn pool(x: [b n D]) -> [b D] = min(x, over=D)   #~ E0401
