## Planted bug: index with float.

fn f(x: [n D], i: float) -> [D] = x[i]   #~ E0410
