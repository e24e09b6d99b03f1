## `Size`, `Axis` and `Axes` are for `extern fn` parameters only.

dim K = 3

fn scale(x: [n], k: Size[K]) -> [n] = x * k   #~ E0504

fn pick(x: [n m], a: Axis[m]) -> [n] = sum(x, over=m)   #~ E0504

fn asserted(x: [n]) -> [n]:
    k = 3 as Size[K]   #~ E0504
    return x
