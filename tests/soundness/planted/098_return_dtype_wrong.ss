## Planted bug: return dtype wrong.

fn f(x: [n] i64) -> [n] = x   #~ E0404
