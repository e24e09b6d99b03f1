## Planted bug: call result misused.

fn grow(x: [n]) -> [n + 1] = concat((x, x[0..1]), over=n)

fn f(a: [n]) -> [n] = grow(a)   #~ E0401
