## Planted bug: model field shape wrong.

dim D = 8
dim C = 3

model Head:
    param w: [C D]

fn predict(m: Head, x: [b D]) -> [b C] = x @ m.w   #~ E0401
