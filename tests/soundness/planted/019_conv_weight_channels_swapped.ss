## Planted bug: conv weight channels swapped.

dim C = 3
dim O = 8

fn patches(x: [b C 16 16], w: [C O 4 4]) -> [b O 4 4] = conv2d(x, w, stride=4)   #~ E0401
