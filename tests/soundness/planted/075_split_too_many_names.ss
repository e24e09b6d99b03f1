## Planted bug: split too many names.

dim D = 8

fn parts(x: [n D]) -> [n 4]:
    a, b, c = split(x, over=D, sizes=(4, 4))   #~ E0406
    return a
