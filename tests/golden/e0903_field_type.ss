## A field keeps its declared type.

dim D = 32

model Scale:
    param w: [D]
    param b: [D] bf16

fn reset(m: Scale):
    m.w = zeros[2*D]   #~ E0903
    m.b = zeros[D]   #~ E0903

fn literal(x: [D]) -> Scale = Scale(w=x, b=x)   #~ E0903

fn fine(m: Scale):
    m.w = ones[D]
