## Planted bug: extern declared wrong.

extern fn flat(x: [n m]) -> [n m] = "torch.flatten"

fn g(x: [n m]) -> [n m] = flat(x) + x   #~ ShapeError
#= g(t(2, 3))
