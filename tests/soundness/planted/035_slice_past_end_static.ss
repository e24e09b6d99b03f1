## Planted bug: slice past end static.

dim T = 8

fn window(x: [T D]) -> [4 D] = x[5..9]   #~ E0406
