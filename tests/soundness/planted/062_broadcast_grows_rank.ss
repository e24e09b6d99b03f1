## Planted bug: broadcast grows rank.

dim D = 8

fn f(x: [b D], s: [m]) -> [b D] = x * s   #~ E0402
