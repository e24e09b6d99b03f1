## Planted bug: bias on wrong axis.

dim D = 8

fn add_bias(x: [b n D], bias: [n]) -> [b n D] = bias + x   #~ E0401
