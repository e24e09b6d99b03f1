## Models: params with and without initialisers, reading fields, `init`, literals,
## stacked layers and gradients of the model's type.

dim D = 8
dim F = 32
dim L = 2
dim C = 4

## A tiny classifier.
model Net:
    ## Stacked layers: a leading axis.
    param w1: [L D F] = normal(std=0.02)
    param w2: [L F D]
    param scale: [D] = ones
    param bias: [D] = zeros
    param head: [D C] = uniform(-0.1, 0.1)
    param b: [C] = normal(mean=0.0, std=1.0)

fn block(m: Net, x: [n D], l: int) -> [n D]:
    return x + (x @ m.w1[l] |> relu) @ m.w2[l]

fn forward(m: Net, x: [n D]) -> [n C] Logit over C:
    for l in 0..L:
        x = block(m, x, l)
    return (x * m.scale + m.bias) @ m.head + m.b

fn fresh() -> Net = Net.init(seed=0)

fn default_seed() -> Net = Net.init()

fn rebuilt(m: Net) -> Net:
    return Net(w1=m.w1, w2=m.w2, scale=m.scale, bias=m.bias, head=m.head, b=m.b)

fn reset(m: Net):
    m.bias = zeros[D]
    m.scale = ones[D]
