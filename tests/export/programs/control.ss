## Control flow in exported functions (book ch. 17).
dim D = 8
dim L = 3

## An `if` on a tensor: a torch.cond, both branches in the program.
export fn flip(x: [n D]) -> [n D]:
    if sum(x) > 0.0:
        y = x * 2.0
    else:
        y = -x
    return y

## `elif` chains and a value assigned before the `if` that one branch changes.
export fn grade(x: [n D]) -> [n D]:
    s = mean(x)
    y = x
    if s > 0.5:
        y = x - 1.0
    elif s > 0.0:
        y = x + 1.0
    return y

## An `if` on a bool that depends on a dynamic size: a torch.cond too.
export fn long_or_short(x: [n D]) -> [n D]:
    if n > 4:
        y = x * 3.0
    else:
        y = x * 0.5
    return y

## An `if` on a bool known while tracing (made of dims): a Python if.
export fn by_width(x: [n D], scale = 2.0) -> [n D]:
    if D > 4:
        y = x * scale
    else:
        y = x
    return y

## A `return` inside an `if` on a host bool known while tracing.
export fn early(x: [n D]) -> [n D]:
    if L > 2:
        return x + 1.0
    return x

## A loop over 0..n with a counter: a torch.while_loop.
export fn running(x: [n D]) -> [D]:
    acc = x[0] * 0.0
    count = 0
    for i in 0..n:
        acc = acc + x[i]
        count = count + 1
    return acc / (count + 1)

## A loop over 0..L, a dim: unrolled.
export fn layers(x: [n D], w: [L D D]) -> [n D]:
    for l in 0..L:
        x = x @ w[l]
    return x

## A host value changed inside an `if` on a tensor: a 0-d tensor in the program.
export fn weigh(x: [n D]) -> [n D]:
    k = 1.0
    if sum(x) > 0.0:
        k = k + 1.5
    return x * k

## A name bound by a Python `if` whose other branch returns, then changed by a torch.cond.
export fn bound_then_changed(x: [n D]) -> [n D]:
    if L > 2:
        y = x + 1.0
    else:
        return x
    if sum(y) > 0.0:
        y = y * 2.0
    return y
