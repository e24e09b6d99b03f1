## Planted bug: untransposed keys 1.

dim Dh = 16

fn scores(q: [b n Dh], k: [b m Dh]) -> [b n m] = q @ k   #~ E0401
