## `clamp` needs a bound: `none` for each is no bound at all.

fn unbounded(x: [n]) -> [n] = clamp(x, min=none, max=none)   #~ E0415

fn half_open(x: [n]) -> [n] = clamp(x, min=0.0, max=none)

fn both(x: [n]) -> [n] = clamp(x, min=-1.0, max=1.0)
