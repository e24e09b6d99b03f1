## Planted bug: call keyword unknown.

fn scale(x: [n], by: float = 2.0) -> [n] = x * by

fn f(a: [n]) -> [n] = scale(a, factor=3.0)   #~ E0502
