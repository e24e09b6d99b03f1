## Planted bug: model unknown field.

dim D = 8

model Head:
    param w: [D D]

fn predict(m: Head, x: [b D]) -> [b D] = x @ m.v   #~ E0901
