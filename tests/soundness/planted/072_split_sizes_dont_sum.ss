## Planted bug: split sizes dont sum.

dim D = 8

fn halves(x: [n D]) -> [n 4]:
    a, b = split(x, over=D, sizes=(4, 5))   #~ E0401
    return a
