## Planted bug: slice wrong length return.

dim T = 8

fn prefix(x: [T D]) -> [3 D] = x[0..4]   #~ E0401
