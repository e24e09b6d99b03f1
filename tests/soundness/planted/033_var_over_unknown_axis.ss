## Planted bug: var over unknown axis.

dim D = 8

fn spread(x: [b n D]) -> [b n] = var(x, over=d)   #~ E0403
