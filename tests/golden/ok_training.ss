## The host-only training built-ins, typed.

dim D = 4
dim C = 3

model Line:
    param w: [D C]

fn loss(m: Line, x: [n D], y: [n] Index[C]) -> [] NonNeg:
    return cross_entropy(x @ m.w, y, over=C)

fn noisy(m: Line, x: [n D]) -> [n C] = dropout(x @ m.w, p=0.1)

fn train(x: [N D], y: [N] Index[C]):
    m = Line.init(seed=0)
    opt = adamw(m, lr=warmup(10, cosine(100, lr=3e-3)), weight_decay=0.01)
    sink("run.jsonl")
    step = 0
    for xb, yb in batches(shuffle((x, y), seed=0), size=16):
        with Train:
            l, grads = value_and_grad(loss, m, xb, yb)
            h = noisy(m, xb)
        grads = clip_norm(grads, max=1.0)
        update(m, grads, opt)
        report(step, loss=l, lr=0.5)
        step = step + 1
    save("ckpt.safetensors", m)

fn resume(x: [n D]) -> [n C]:
    m = load("ckpt.safetensors", Line)
    plain = sgd(m, lr=0.1, momentum=0.9)
    return x @ m.w
