## `return` inside an `if` on a tensor in an exported function.

export fn f(x: [n]) -> [n]:
    if sum(x) > 0.0:
        return x   #~ E1706
    return -x

export fn fine(x: [n]) -> [n]:
    if sum(x) > 0.0:
        y = x
    else:
        y = -x
    return y

fn not_exported(x: [n]) -> [n]:
    if sum(x) > 0.0:
        return x
    return -x
