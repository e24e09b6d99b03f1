## Planted bug: std claimed nonneg generic.

fn spread(x: [b n]) -> [b] NonNeg = std(x, over=n)   #~ E0701
