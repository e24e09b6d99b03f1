## Planted bug: as changes dtype.

fn f(x: [n]) -> [n] i64 = x as [n] i64   #~ E0703
