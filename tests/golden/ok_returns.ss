## Tuple returns and destructuring; functions without a return type.

dim D = 4

fn stats(x: [b n D]) -> ([b D], [b D]):
    return mean(x, over=n), var(x, over=n)

fn center(x: [b n D]) -> [b n D]:
    mu, v = stats(x)
    return (x - mu) / sqrt(v + 1e-5)

fn nested(x: [n]) -> (([n], [n]), [n]):
    return (x, x), x

fn inner(x: [n]) -> [n]:
    pair, single = nested(x)
    a, b = pair
    return a + b + single

fn show(x: [n]):
    print(x)

fn uses_show(x: [n]) -> [n]:
    show(x)
    return x
