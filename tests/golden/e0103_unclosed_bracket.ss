## An opening bracket that is never closed.

fn pool(x: [b n D]) -> [b D] = mean(x, over=n   #~ E0103
