## `as [5 D]` on an input's dynamic size: torch can't export it (a generic axis that
## the program would fix at 5), so `shapescript export` reports torch's error here.
dim D = 4

export fn pin(x: [n D]) -> [5 D]:
    y = x * 2.0
    return y as [5 D]
