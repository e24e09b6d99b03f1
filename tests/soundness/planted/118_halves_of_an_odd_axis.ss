## Planted bug: halves of an odd axis.

fn halves(x: [b m]) -> [b m/2 2] = rearrange(x, b (k two) -> b k two, two=2)   #~ ShapeError
#= halves(t(2, 5))
