## Planted bug: slice negative start.

dim T = 6

fn w(x: [T]) -> [3] = x[-1..2]   #~ E0401
