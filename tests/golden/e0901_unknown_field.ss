## Fields a model doesn't have.

dim D = 32

model Affine:
    param w: [D D]
    param b: [D]

fn apply(m: Affine, x: [n D]) -> [n D] = x @ m.w + m.bias   #~ E0901

fn set(m: Affine):
    m.scale = ones[D]   #~ E0901

fn built(w: [D D], b: [D]) -> Affine = Affine(w=w, bias=b)   #~ E0901

fn not_a_model(x: [n D]) -> [n D] = x.w   #~ E0901
