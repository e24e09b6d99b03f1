## Assertions in exported programs (book ch. 17).
dim D = 4

## The rows with a non-zero value: a data-dependent size.
fn nonempty_rows(x: [n D]) -> [?k D]:
    return x[reduce(abs(x), n d -> n, max) > 0.0]

## `as [5 D]` on a data-dependent size: a torch._check the program checks.
export fn five(x: [b 5 D]) -> [5 D]:
    return nonempty_rows(x[0]) as [5 D]

## A `?k` in an `as`: at least 0.
export fn some(x: [n D]) -> [D]:
    rows = nonempty_rows(x) as [?m D]
    return reduce(rows, m d -> d, sum)

## A value check of an `as`, kept as aten._assert_async with its message.
export fn root(x: [n D]) -> [n D]:
    return sqrt(x as [n D] Pos)

## A value check of an argument.
export fn double(p: [b C] Prob over C) -> [b C]:
    return p * 2.0
