## Planted bug: call rank wrong.

dim D = 8

fn head(x: [b D]) -> [b] = sum(x, over=D)

fn f(x: [b n D]) -> [b] = head(x)   #~ E0402
