## Planted bug: reduce wrong axis logsumexp.

dim D = 8

fn pool(x: [b n D]) -> [b D] = logsumexp(x, over=D)   #~ E0401
