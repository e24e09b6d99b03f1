## Planted bug: matmul batch mismatch.

fn bmm(a: [b n k], c: [e k m]) -> [b n m] = a @ c   #~ E0402
