## Planted bug: as new size name.

fn f(x: [n]) -> [n] = (x as [m]) + x   #~ E0706
