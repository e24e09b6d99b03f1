## Planted bug: slice reversed.

fn mid(x: [n D]) -> [?k D] = x[3..1]   #~ E0406
