## Stacking needs tuple elements of one type.

dim D = 8

fn pair(u: [n D], v: [n D] f16) -> [n 2*D] = rearrange((u, v), s n d -> n (s d))   #~ E0408

fn labels(u: [n D], v: [m D]) -> [2 n D] = stack((u, v))   #~ E0408

fn not_a_tuple(u: [n D]) -> [1 n D] = stack(u)   #~ E0408

fn concat_host(u: [n D]) -> [n D] = concat((u, 1.0), over=n)   #~ E0408
