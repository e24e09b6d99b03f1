## Planted bug: weights on the wrong side.

dim D = 8

fn mix(x: [b n D], w: [D D]) -> [b n D] = w @ x   #~ E0401
