## Planted bug: concat other axis differs.

fn join(a: [n D], b: [n E]) -> [2*n D] = concat((a, b), over=n)   #~ E0401
