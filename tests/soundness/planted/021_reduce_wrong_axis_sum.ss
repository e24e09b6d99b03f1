## Planted bug: reduce wrong axis sum.

dim D = 8

fn pool(x: [b n D]) -> [b D] = sum(x, over=D)   #~ E0401
