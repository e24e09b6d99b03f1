## The parameters of an exported function are tensors with shapes, or host scalars with
## defaults.

dim D = 8

model M:
    param w: [D]

export fn f(x: [n], k: int) -> [n]:   #~ E1705
    return x * k

export fn any_rank(x: [...]) -> [...] = x   #~ E1705

export fn named(x: [n], s: str = "a") -> [n] = x   #~ E1705

export fn with_model(m: M, x: [n D]) -> [n D] = x * m.w   #~ E1705

export fn fine(x: [n], k: int = 2, flag: bool = false) -> [n] = x * k
