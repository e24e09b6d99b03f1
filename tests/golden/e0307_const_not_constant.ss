## A const's value is computed when the file is checked: numbers, strings, dims and
## other consts with arithmetic, nothing else.

dim D = 8

const scale = sqrt(64.0)   #~ E0307
const unknown = bias + 1   #~ E0307
const a = b * 2   #~ E0307
const b = a
const half = D / 0   #~ E0307
const huge = 2 ** 70   #~ E0307
const word = "tanh" * 2   #~ E0307
const ok = D / 2

fn use(x: [n D]) -> [n D] = x * scale + unknown + a + b + half + huge + ok
