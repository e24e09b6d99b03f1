## `for` walks ranges, Python values and batches, not tensors.

fn show(x: [n]):
    for v in x:   #~ E0805
        print(v)

fn numbers(k: int):
    for v in k:   #~ E0805
        print(v)

fn indexed(x: [n]):
    for i in 0..n:
        print(x[i])
