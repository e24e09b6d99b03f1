## Planted bug: int matmul float.

fn f(a: [n k] i64, c: [k m]) -> [n m] = a @ c   #~ E0404
