## Planted bug: transposed mlp 1.

dim D = 16
dim F = 64

fn mlp(x: [b n D], w1: [D F], w2: [D F]) -> [b n D]:
    h = relu(x @ w1)
    return h @ w2   #~ E0401
