## Planted bug: transposed mlp 2.

dim D = 4
dim F = 12

fn mlp(x: [b n D], w1: [D F], w2: [D F]) -> [b n D]:
    h = relu(x @ w1)
    return h @ w2   #~ E0401
