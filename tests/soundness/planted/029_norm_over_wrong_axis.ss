## Planted bug: norm over wrong axis.

dim D = 8

fn norm(x: [b n D], w: [D]) -> [b n D] = layer_norm(x, over=n, weight=w)   #~ E0401
