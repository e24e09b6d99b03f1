## Planted bug: slice shifted difference 2d.

fn velocity(p: [t D]) -> [t - 1 D] = p[1..t] - p[0..t]   #~ E0401
