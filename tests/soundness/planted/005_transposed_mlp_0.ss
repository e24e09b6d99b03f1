## Planted bug: transposed mlp 0.

dim D = 8
dim F = 32

fn mlp(x: [b n D], w1: [D F], w2: [D F]) -> [b n D]:
    h = relu(x @ w1)
    return h @ w2   #~ E0401
