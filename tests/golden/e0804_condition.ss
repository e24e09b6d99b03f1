## `if` takes a host `bool` or a `[] Mask`.

fn magnitude(x: [n]) -> [n]:
    if x > 0.0:   #~ E0804
        return x
    return -x

fn number(x: [n], k: int) -> [n]:
    if k:   #~ E0804
        return x
    return -x

fn logic(x: [n], y: [n]) -> [n] Mask = x and y   #~ E0804

fn negate(k: int) -> bool = not k   #~ E0804

fn pick(m: [n] u8, x: [n]) -> [n] = where(m, x, 0.0)   #~ E0804

fn fine(x: [n]) -> [n]:
    if max(x > 0.0):
        return x
    return -x
