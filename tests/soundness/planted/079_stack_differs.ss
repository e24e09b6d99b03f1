## Planted bug: stack differs.

fn both(a: [n], b: [m]) -> [2 n] = stack((a, b))   #~ E0408
