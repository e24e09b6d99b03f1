## Planted bug: causal shift wrong mask.

fn shift(x: [n D]) -> [n D] = x[1..n]   #~ E0401
