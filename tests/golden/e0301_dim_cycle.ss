## Dims that depend on each other.

dim D = 64
dim Heads = D / Dh   #~ E0301
dim Dh = D / Heads

dim Self = Self + 1   #~ E0301

fn uses(x: [n Heads]) -> [n Dh] = x
