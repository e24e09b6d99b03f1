## A call that fails gives the error type: its uses don't report again.

dim D = 8

fn pool(x: [b n D]) -> [b D] = mean(x, over=n)

fn twice(x: [b D]) -> [b D] = x * 2.0

fn main_path(x: [n D]) -> [D]:
    p = pool(x)   #~ E0402
    q = twice(p)
    return q[0] + sum(q, over=b)

fn arity(x: [b n D]) -> [b D]:
    p = pool(x, x)   #~ E0501
    return twice(p)

fn bad_pattern(x: [b n D]) -> [b D]:
    y = rearrange(x, b n d -> b (n e))   #~ E0602
    return reduce(y, b k -> b, sum) + y[0]

fn bad_arg(x: [b n D]) -> [b D] = twice(pool(x @ x))   #~ E0401
