## Planted bug: return claims pos.

fn f(x: [n]) -> [n] Pos = x   #~ E0701
