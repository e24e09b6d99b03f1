## Planted bug: slice past end.

fn tail(x: [n D]) -> [n D] = x[1..n + 1]   #~ E0406
