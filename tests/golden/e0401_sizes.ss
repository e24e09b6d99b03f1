## Sizes the checker can't prove equal.

dim D = 32
dim C = 4

fn head(x: [b D], w: [C D]) -> [b C] = x @ w   #~ E0401

fn joined(x: [n D], y: [n C]) -> [n D+C] = concat((x, y), over=n)   #~ E0401

fn parts(x: [n D]) -> ([n 16], [n 8]) = split(x, over=D, sizes=(16, 8))   #~ E0401

fn masked(x: [n D], m: [D] Mask) -> [?k D] = x[m]   #~ E0401

fn wrong_return(x: [n D]) -> [n C] = x   #~ E0401

fn arg(x: [n C]) -> [n D] = head(x, zeros[C D])   #~ E0401

fn generic_disagrees(x: [n D], y: [m D]) -> [n D] = both(x, y)   #~ E0401

fn both(a: [n D], b: [n D]) -> [n D] = a + b

fn order(x: [b n D], s: [D]) -> [b n D] = s * x   #~ E0401

fn branches(x: [n D], flip: bool) -> [n D]:
    if flip:
        y = x
    else:
        y = x[0..2]   #~ E0401
    return x
