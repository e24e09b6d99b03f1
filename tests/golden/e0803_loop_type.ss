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
