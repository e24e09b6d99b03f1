## Planted bug: merge wrong return.

fn flat(x: [b n D]) -> [b n*D n] = rearrange(x, b n D -> b (n D))   #~ E0402
