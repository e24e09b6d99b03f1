## Planted bug: rank of ellipsis.

fn f(x: [...]) -> [...] = x[0]   #~ E0409
