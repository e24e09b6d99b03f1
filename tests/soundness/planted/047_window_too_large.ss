## Planted bug: window too large.

dim T = 4

fn prefix(w: [T D]) -> [5 D] = w[0..5]   #~ E0406
