## A new plain name in `as` or an annotation: nothing would bind it.

dim D = 32

fn active(x: [n D], keep: [n] Mask) -> [?k D]:
    y = x[keep] as [m D]   #~ E0706
    return y

fn annotated(x: [n D]) -> [n D]:
    y: [n E] = x   #~ E0706
    return y

fn constructor(x: [n D]) -> [n D] = x + zeros[m D]   #~ E0201
