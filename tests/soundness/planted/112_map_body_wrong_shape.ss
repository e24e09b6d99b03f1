## Planted bug: map body wrong shape.

fn rows(x: [n D]) -> [n D] = n |> map(i => x)   #~ E0402
