## A size that would be 2**64, and a product of sums that expands past 128 terms: each
## is reported once, where it arises, and the sizes that depend on it stay silent.

dim D0 = 65536
dim D1 = D0 * D0
dim D2 = D1 * D1   #~ E0305
dim D3 = D2 + 1

fn wide(x: [a], y: [b], z: [c], w: [d], v: [e], u: [g], t: [h], q: [(a + b + c + d + e + g + h) * (a + b + c + d + e + g + h) * (a + b + c + d + e + g + h) * (a + b + c + d + e + g + h) * (a + b + c + d + e + g + h) * (a + b + c + d + e + g + h) * (a + b + c + d + e + g + h)]) -> [a] = x   #~ E0305
