## Planted bug: layer norm weight wrong.

dim D = 8

fn norm(x: [b n D], w: [n]) -> [b n D] = layer_norm(x, over=D, weight=w)   #~ E0401
