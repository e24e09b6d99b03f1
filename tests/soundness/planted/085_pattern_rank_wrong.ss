## Planted bug: pattern rank wrong.

fn t(x: [b n D]) -> [b D n] = rearrange(x, b n -> n b)   #~ E0603
