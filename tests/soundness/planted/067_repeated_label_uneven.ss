## Planted bug: repeated label uneven.

fn f(a: [n n], b: [n]) -> [n n] = a * b   #~ E0405
