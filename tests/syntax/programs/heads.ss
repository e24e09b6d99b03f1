dim H = 4
fn heads(x: [b n 3*D]) -> [3 b H n D/H]:
    return rearrange(x, b n (three h d) -> three b h n d, three=3, h=H)   # d = 8
