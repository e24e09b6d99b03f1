## Planted bug: heads group two unknowns.

fn heads(x: [b n D]) -> [b n D] = rearrange(x, b n (h d) -> b n h d)   #~ E0604
