## `value_and_grad(f, m, …)` needs an `f` that takes the model first and returns `[]`.

dim D = 4

model Line:
    param w: [D]

fn loss(x: [n D], m: Line) -> [] = mean(square(x @ m.w))

fn per_item(m: Line, x: [n D]) -> [n] = x @ m.w

fn good(m: Line, x: [n D]) -> [] = mean(x @ m.w)

fn train(m: Line, x: [n D]):
    opt = sgd(m, lr=0.1)
    l, grads = value_and_grad(loss, m, x)   #~ E1101
    l2, g2 = value_and_grad(per_item, m, x)   #~ E1101
    l3, g3 = value_and_grad(x, m, x)   #~ E1101
    l4, g4 = value_and_grad(good, m, x)
    update(m, g4, opt)
