## Names bound only in some branches, or first in a loop body, are out of scope after.

fn pick(x: [n], flip: bool) -> [n]:
    if flip:
        y = -x
    return y   #~ E0802

fn loop_local(x: [n]) -> [n]:
    for i in 0..3:
        z = x * 2.0
    return z   #~ E0802

fn loop_var(x: [n]) -> int:
    for i in 0..3:
        x = x * 2.0
    return i   #~ E0802

fn elif_missing(x: [n], k: int) -> [n]:
    if k == 0:
        y = x
    elif k == 1:
        y = -x
    return y   #~ E0802

fn fine(x: [n], flip: bool) -> [n]:
    y = x
    if flip:
        y = -x
    return y
