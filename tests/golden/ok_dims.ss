## Dims: static sizes computed from other dims, floor division, number-names and
## sizes computed from generics in signatures.

dim S = 16
dim P = 4
dim N = (S / P) * (S / P)
dim Half = S / 3
dim K = 3
dim Out = (S - K) / 2 + 1
dim Wide = 4P

fn flat(x: [b S S]) -> [b S*S] = rearrange(x, b h w -> b (h w))

fn cells(x: [b 16gh]) -> [b gh 16] = rearrange(x, b (gh c) -> b gh c, c=16)

fn grow(x: [n]) -> [n+1] = concat((x, ones[1]), over=n)

fn shrink(x: [n]) -> [n-1] = x[1..n]

fn pool(x: [b Out]) -> [b 7] = x

fn patches(x: [b N]) -> [b 16] = x

fn thirds(x: [b Half]) -> [b 5] = x

fn as_value() -> int = N * 2 + S // 3 + S % 3

fn generic_value(x: [n]) -> int = n * 2

fn wide(x: [Wide]) -> [16] = x

fn grouped(x: [b (gh 16)]) -> [b 16gh] = x
