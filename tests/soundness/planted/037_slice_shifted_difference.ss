## Planted bug: slice shifted difference.

fn diff(x: [n]) -> [n - 1] = x[1..n] - x[0..n]   #~ E0401
