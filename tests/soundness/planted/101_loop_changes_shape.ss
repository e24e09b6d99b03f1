## Planted bug: loop changes shape.

fn f(x: [n]) -> [n]:
    acc = x
    for i in 0..3:
        acc = stack((acc, acc))   #~ E0803
    return acc
