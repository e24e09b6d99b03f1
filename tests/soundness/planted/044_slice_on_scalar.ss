## Planted bug: slice on scalar.

fn s(x: []) -> [] = x[0..1]   #~ E0406
