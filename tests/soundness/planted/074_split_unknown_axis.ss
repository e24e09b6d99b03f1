## Planted bug: split unknown axis.

fn halves(x: [n D]) -> [n D]:
    a, b = split(x, over=E, sizes=(D, D))   #~ E0403
    return a
