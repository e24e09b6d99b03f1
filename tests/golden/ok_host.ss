## Host values: ints, floats, bools and strs; dims and generics as values; `//` and `%`.

dim D = 32

fn half() -> int = D // 2

fn ratio() -> float = D / 3

fn remainder() -> int = D % 5

fn compare(k: int) -> bool = k < D and k >= 0

fn size_of(x: [n D]) -> int = n * D

fn mean_size(x: [n D]) -> float = (n + D) / 2

fn power() -> int = 2 ** 3

fn scaled(x: [n D], k: int) -> [n D] = x * k / D

fn negated(k: int) -> int = -k

fn greeting(name: str) -> str = name

fn defaults(x: [n D], eps = 1e-5, flag = true, name = "x") -> [n D]:
    if flag:
        return x + eps
    return x
