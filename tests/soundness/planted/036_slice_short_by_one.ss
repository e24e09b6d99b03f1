## Planted bug: slice short by one.

fn head(x: [n D]) -> [n D] = x[0..n - 1]   #~ E0401
