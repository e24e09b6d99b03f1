## A number stuck to a name is a product only where a size is expected.

fn double(x: [n]) -> [n] = 2x   #~ E0104

fn fine(x: [b 2n]) -> [b 2n] = x
