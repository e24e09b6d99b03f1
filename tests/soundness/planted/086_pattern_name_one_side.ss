## Planted bug: pattern name one side.

fn t(x: [b n D]) -> [b n] = rearrange(x, b n D -> b n e)   #~ E0602
