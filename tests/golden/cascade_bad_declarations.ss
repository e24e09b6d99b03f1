## A declaration that fails once doesn't make its uses fail again.

dim D = 8
dim Bad = D - 16   #~ E0302
dim Alias = [b Bad]

model M:
    param w: [Bad D]
    param v: [Missing]   #~ E0902

fn f(x: [n Bad]) -> [n Bad] = x

fn g(x: Alias, m: M) -> [b D] = f(x) @ m.w

fn i(y: Nope) -> [n D] = y   #~ E0201

fn j(x: [n D]) -> [n D] = i(x) + i(x)
