dim D = 4
fn f(x: [n D]) -> [n D]:    y = x
    return y
