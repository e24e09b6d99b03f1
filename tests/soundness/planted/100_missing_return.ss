## Planted bug: missing return.

fn f(x: [n]) -> [n]:   #~ E0801
    y = x
