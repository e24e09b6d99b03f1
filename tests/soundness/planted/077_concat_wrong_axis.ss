## Planted bug: concat wrong axis.

dim D = 8

fn join(a: [n D], b: [m D]) -> [n + m D] = concat((a, b), over=D)   #~ E0401
