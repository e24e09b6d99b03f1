## Host-only values and operations in an exported function.

dim D = 64

model M:
    param w: [D]

export fn f(x: [n D]) -> [n D]:
    print(x)   #~ E1704
    return x

export fn with_model(x: [n D]) -> [n D]:
    m = M.init(seed=0)   #~ E1704
    return x * m.w

export fn loop(x: [n D]) -> [n D]:
    for v in batches(x, size=2):   #~ E1704
        print(v)   #~ E1704
    return x

export fn python_loop(x: [n D]) -> [n D]:
    for v in x:   #~ E0805
        print(v)   #~ E1704
    return x

export fn mode(x: [n D]) -> [n D]:
    with Train:   #~ E1704
        y = dropout(x)
    return y
