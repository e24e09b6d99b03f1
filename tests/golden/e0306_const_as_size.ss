## A const is a host value, never a size: not in a type, a dim, a constructor or a pattern.

import layers

const heads = 4
const eps = 1e-6

dim H = heads * 2   #~ E0306

fn heads_of(x: [n 32]) -> [n heads 8] = rearrange(x, n (h d) -> n h d, h=4)   #~ E0306

fn grow(x: [n 4]) -> [n 4]:
    y = zeros[n heads]   #~ E0306
    z = rearrange(x, n (a b) -> n (a b), a=heads)   #~ E0306
    return x + y + z * eps

fn rate(x: [n layers.D]) -> [n layers.eps]:   #~ E0306
    return x
