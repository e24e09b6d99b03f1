## Planted bug: sum of outer.

fn dot(a: [n], b: [m]) -> [] = sum(a * b, over=n)   #~ E0402
