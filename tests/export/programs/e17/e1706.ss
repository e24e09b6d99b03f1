export fn f(x: [n]) -> [n]:
    if sum(x) > 0:
        return x
    return -x
