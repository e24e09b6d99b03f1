## Planted bug: unknown name.

fn f(x: [n]) -> [n] = y   #~ E0201
