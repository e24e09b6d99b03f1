## Generic sizes that no parameter determines.

fn positives(x: [n]) -> [k] = x[x > 0.0]   #~ E0303

fn product(x: [n*m]) -> [n] = x[0..n]   #~ E0303

fn bound(ids: [b] Index[V]) -> [b] = ids to f32   #~ E0303

fn fine(x: [n]) -> [?k] = x[x > 0.0]

extern fn nonzero(x: [n]) -> [k] i64 = "torch.nonzero"
