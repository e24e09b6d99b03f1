## Indexing: host ints, `[]` indices, slices, masks and gathers.

dim V = 100
dim D = 8
dim L = 3

fn first(x: [n D]) -> [D] = x[0]

fn corner(x: [n m D]) -> [D] = x[0, 0]

fn last(x: [L D]) -> [D] = x[-1]

fn layer(w: [L D D], l: int) -> [D D] = w[l]

fn at(x: [n D], i: [] i64) -> [D] = x[i]

fn window(x: [L D]) -> [2 D] = x[1..L]

fn head(x: [n D], k: int) -> [?m D] = x[0..k]

fn generic_slice(x: [n D]) -> [n-1 D] = x[1..n]

fn keep(x: [n D], m: [n] Mask) -> [?k D] = x[m]

fn positives(x: [n]) -> [?k] = x[x > 0.0]

fn embed(ids: [b n] Index[V], table: [V D]) -> [b n D] = table[ids]

fn in_loop(w: [L D D], x: [n D]) -> [n D]:
    for l in 0..L:
        x = x @ w[l]
    return x
