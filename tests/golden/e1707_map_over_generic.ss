## `map` over a generic size in an exported function.

dim C = 4

export fn doubled(x: [n]) -> [n] = n |> map(i => x[i] * 2.0)   #~ E1707

export fn fine(x: [C]) -> [C] = C |> map(i => x[i] * 2.0)

fn not_exported(x: [n]) -> [n] = n |> map(i => x[i] * 2.0)
