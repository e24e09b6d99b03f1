extern fn mystery(x: [...]) -> [...] = "mylib.mystery"

export fn f(x: [n]) -> [n]:
    return mystery(x)
