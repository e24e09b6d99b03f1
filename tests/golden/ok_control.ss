## Control flow: `if`/`elif`/`else` on host bools and `[] Mask`, `for` over ranges,
## names bound in every branch, and loops that keep a variable's type.

dim L = 3
dim D = 4

fn pick(x: [n D], flip: bool) -> [n D]:
    if flip:
        y = -x
    else:
        y = x
    return y

fn three_ways(x: [n D], k: int) -> [n D]:
    if k < 0:
        return -x
    elif k == 0:
        return zeros[n D]
    else:
        return x

fn on_a_tensor(x: [n D]) -> [n D]:
    if sum(x) > 0.0:
        y = x
    else:
        y = -x
    return y

fn domains_join(x: [n], big: bool) -> [n] NonNeg:
    if big:
        y = exp(x)
    else:
        y = square(x)
    return y

fn layers(w: [L D D], x: [n D]) -> [n D]:
    for l in 0..L:
        x = x @ w[l]
    return x

fn counter(x: [n D]) -> int:
    total = 0
    for i in 1..n:
        total = total + i
    return total

fn in_loop(x: [n D]) -> [n D]:
    for i in 0..2:
        x = relu(x)
    return x

fn early(x: [n D], stop: bool) -> [n D]:
    if stop:
        return x
    y = x * 2.0
    return y

fn prints(x: [n D]):
    print(x)
    return
