## Planted bug: untransposed keys 2.

dim Dh = 64

fn scores(q: [b n Dh], k: [b m Dh]) -> [b n m] = q @ k   #~ E0401
