## Planted bug: call generic disagrees.

fn plus(x: [n], y: [n]) -> [n] = x + y

fn f(a: [n], c: [m]) -> [n] = plus(a, c)   #~ E0401
