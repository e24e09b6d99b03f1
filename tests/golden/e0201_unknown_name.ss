## Unknown names: a value, a function, a type and a dim in a dim's size.

dim D = 8
dim N = D * M   #~ E0201

fn scale(x: [n]) -> [n] = x * factor   #~ E0201

fn call(x: [n]) -> [n] = sqaure(x)   #~ E0201

fn typed(x: Feats) -> [n] = x   #~ E0201

fn bad_dtype(x: [n] f31) -> [n] = x   #~ E0101

fn with_mode(x: [n]) -> [n]:
    with Eval:   #~ E0201
        y = x
    return y
