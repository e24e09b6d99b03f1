## Planted bug: untransposed keys 0.

dim Dh = 8

fn scores(q: [b n Dh], k: [b m Dh]) -> [b n m] = q @ k   #~ E0401
