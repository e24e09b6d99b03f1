## Planted bug: clamp without bounds.

fn c(x: [n]) -> [n] = clamp(x)   #~ E0501
