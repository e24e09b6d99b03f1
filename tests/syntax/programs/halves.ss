fn halves(x: [b n D]) -> [b n D/2]:
    parts = rearrange(x, b n (k two) -> two b n k, two=2)    # [two b n k], k = D/2
    w = arange[D/2] to f32                                   # [D/2] NonNeg
    return parts[0] * w                                      # k matches D/2: [b n k]
