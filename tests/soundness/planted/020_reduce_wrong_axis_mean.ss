## Planted bug: reduce wrong axis mean.

dim D = 8

fn pool(x: [b n D]) -> [b D] = mean(x, over=D)   #~ E0401
