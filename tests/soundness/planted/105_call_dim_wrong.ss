## Planted bug: call dim wrong.

dim D = 8

fn head(x: [b D]) -> [b] = sum(x, over=D)

fn f(x: [b 4]) -> [b] = head(x)   #~ E0401
