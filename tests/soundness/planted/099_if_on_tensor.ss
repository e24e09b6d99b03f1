## Planted bug: if on tensor.

fn f(x: [n]) -> [n]:
    if x:   #~ E0804
        return x
    return -x
