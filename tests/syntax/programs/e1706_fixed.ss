export fn f(x: [n]) -> [n]:
    if sum(x) > 0:
        y = x
    else:
        y = -x
    return y
