## Unknown and repeated keyword arguments.

dim D = 32

fn pool(x: [b n D]) -> [b D] = mean(x, axis=n)   #~ E0502

fn scale(x: [n], k: float = 2.0) -> [n] = x * k

fn twice(x: [n]) -> [n] = scale(x, k=1.0, k=2.0)   #~ E0502

fn unknown(x: [n]) -> [n] = scale(x, factor=3.0)   #~ E0502

fn positional_and_named(x: [n]) -> [n] = scale(x, 1.0, k=2.0)   #~ E0502

model M:
    param w: [D] = normal(sd=0.1)   #~ E0502
