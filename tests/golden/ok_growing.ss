## Tensors that grow in a loop: a variable declared with an unknown (`?s`) may change that
## axis's size in a loop; `over=s` names the axis; variables sharing the unknown stay
## equal where the loop changes them alike.

fn doubling(x: [n], steps: int) -> [?t]:
    out: [?s] = x
    for i in 0..steps:
        out = concat((out, out), over=s)
    return out

fn together(ids: [b n] i64, steps: int) -> [b ?t] i64:
    out: [b ?s] i64 = ids
    pos: [b ?s] i64 = ids
    for i in 0..steps:
        y = out + pos
        col = rearrange(y, b s -> s b)[-1]
        out = concat((out, rearrange(col, b -> b 1)), over=s)
        pos = concat((pos, rearrange(col + 1, b -> b 1)), over=s)
    return out + pos

fn nested(x: [n], steps: int) -> [?t]:
    out: [?s] = x
    for i in 0..steps:
        for j in 0..2:
            out = concat((out, x), over=s)
        out = relu(out)
    return out
