## Planted bug: broadcast order flipped.

dim D = 8

fn scale(x: [b n D], s: [D]) -> [b n D] = s * x   #~ E0401
