## Planted bug: split sizes dont sum expr.

dim D = 8

fn halves(x: [n D]) -> [n D/2]:
    a, b = split(x, over=D, sizes=(D/2, D/2 + 1))   #~ E0401
    return a
