## Planted bug: heads value dim mismatch.

dim H = 4

fn mix(a: [b H n m], v: [b H n 8]) -> [b H n 8] = a @ v   #~ E0401
