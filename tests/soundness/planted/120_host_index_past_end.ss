## Planted bug: host index past end.

fn pick(x: [n D], i: int) -> [D] = x[i]   #~ ShapeError
#= pick(t(3, 2), 3)
