## Planted bug: split group static inexact.

dim D = 10

fn thirds(x: [n D]) -> [n 3 D/3] = rearrange(x, n (k three) -> n three k, three=3)   #~ E0604
