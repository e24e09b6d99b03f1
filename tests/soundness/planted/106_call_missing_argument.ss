## Planted bug: call missing argument.

fn plus(x: [n], y: [n]) -> [n] = x + y

fn f(a: [n]) -> [n] = plus(a)   #~ E0501
