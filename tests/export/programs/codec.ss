## Two export fns: `shapescript export codec.ss` must be told which (--fn).
dim D = 8

export fn encode(x: [b n D]) -> [b n D]:
    return x * 2.0

export fn decode(x: [b n D]) -> [b n D]:
    return x / 2.0
