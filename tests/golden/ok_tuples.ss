## Tuples: values, literal indices, destructuring, stacking, concat and split.

dim D = 8

fn pair(x: [n D]) -> ([n D], [n D]) = (x, -x)

fn swap(x: [n D], y: [n D]) -> ([n D], [n D]):
    return y, x

fn second(x: [n D]) -> [n D]:
    t = pair(x)
    return t[1]

fn last(x: [n D]) -> [n D]:
    t = pair(x)
    return t[-1]

fn unpacked(x: [n D]) -> [n D]:
    a, b = pair(x)
    return a + b

fn interleave(u: [n D], v: [n D]) -> [n 2*D] = rearrange((u, v), s n d -> n (s d))

fn stacked(u: [n D], v: [n D], w: [n D]) -> [3 n D] = stack((u, v, w))

fn joined(u: [n D], v: [m D]) -> [n+m D] = concat((u, v), over=n)

fn doubled(u: [n D]) -> [2*n D] = concat((u, u), over=n)

fn halves(x: [n D]) -> ([n D/2], [n D/2]) = split(x, over=D, sizes=(D/2, D/2))

fn uneven(x: [n D]) -> [n 2] = split(x, over=D, sizes=(2, 6))[0]
