## A loop may not change the type of a variable from before it.

fn show_decay(x: [n] u8):
    y = x
    for i in 0..3:
        y = y * 0.5   #~ E0803
        print(y)

fn grows(x: [n]) -> [n]:
    for i in 0..3:
        x = concat((x, x), over=n)   #~ E0803
    return x

fn counter(x: [n]) -> int:
    k = 0
    for i in 0..3:
        k = k + 0.5   #~ E0803
    return k

fn narrower_is_fine(x: [n]) -> [n]:
    for i in 0..3:
        x = relu(x)
    return x

fn grows_other_axis(x: [b n]) -> [?t b]:
    out: [b ?s] = x
    for i in 0..3:
        out = concat((out, out), over=b)   #~ E0803
    return rearrange(out, b s -> s b)

fn grows_to_another_dtype(x: [b n]) -> [b ?t] f64:
    out: [b ?s] = x
    for i in 0..3:
        out = concat((out, x), over=s) to f64   #~ E0803
    return out to f64

fn grows_apart(ids: [b n] i64, pos0: [b n] i64) -> [b ?t] i64:
    out: [b ?s] i64 = ids
    pos: [b ?s] i64 = pos0
    for i in 0..3:   #~ E0803
        out = concat((out, ids), over=s)
        pos = concat((pos, pos0, pos0), over=s)
    return out
