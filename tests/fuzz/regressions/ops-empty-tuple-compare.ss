fn f(x: [n]) -> [n]:
    if () > 0:
        return x
    return x
