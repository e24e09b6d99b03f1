dim D = 64

export fn f(x: [n D]) -> [n D]:
    print(x)
    return x
