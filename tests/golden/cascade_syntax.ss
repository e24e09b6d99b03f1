## A syntax error loses only its own declaration; every other one is still checked.

dim D = 8

fn broken(x: [n D]) -> [n D] = x +   #~ E0101

fn fine(x: [n D]) -> [n D] = x * 2.0

fn uses_broken(x: [n D]) -> [n D] = broken(x)

fn type_error(x: [n D]) -> [n] = x   #~ E0402

fn block(x: [n D]) -> [n D]:
    y = x +* 2.0   #~ E0101
    z = x ** ** 2   #~ E0101
    return z
