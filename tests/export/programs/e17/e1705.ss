export fn f(x: [n], k: int) -> [n]:
    return x * k
