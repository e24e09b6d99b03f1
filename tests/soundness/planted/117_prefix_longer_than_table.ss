## Planted bug: prefix longer than table.

dim T = 4

fn prefix(w: [T D], x: [n D]) -> [n D] = w[0..n]   #~ ShapeError
#= prefix(t(4, 2), t(6, 2))
