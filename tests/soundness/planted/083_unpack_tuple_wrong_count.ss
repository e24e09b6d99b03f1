## Planted bug: unpack tuple wrong count.

fn pair(x: [n]) -> ([n], [n]) = (x, x)

fn three(x: [n]) -> [n]:
    a, b, c = pair(x)   #~ E0406
    return a
