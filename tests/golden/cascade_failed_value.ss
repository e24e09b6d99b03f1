## One mistake, one diagnostic: a value that failed is used many times after, silently.

dim D = 8
dim C = 4

fn forward(x: [b D], w: [C D], v: [C C]) -> [b C] Logit over C:
    h = x @ w   #~ E0401
    h2 = relu(h) @ v
    p = softmax(h2, over=C)
    s = sum(p, over=C) + mean(h, over=b)
    if max(h > 0.0):
        h = h * 2.0
    for i in 0..3:
        h2 = h2 + h
    return h2 + rearrange(h, b c -> b c)

fn unknown(x: [b D]) -> [b D]:
    y = x * scale   #~ E0201
    z = y + y
    t = (z, y)
    a, c = t
    return a @ eye[D D] + c[0..b]
