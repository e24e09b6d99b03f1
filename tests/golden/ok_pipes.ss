## Pipes: `x |> f`, `x |> f(a)`, `_` for the piped value's place, and `|> to T`.

dim D = 8
dim F = 16

fn mlp(x: [n D], w1: [D F], w2: [F D]) -> [n D]:
    return x |> matmul(w1) |> gelu |> matmul(w2) |> add(x, _)

fn scale(x: [n D], s: float) -> [n D] = x * s

fn halved(x: [n D]) -> [n D] = x |> scale(0.5)

fn placeholder_first(x: [n D], y: [n D]) -> [n D] = x |> sub(_, y)

fn pixels(img: [b h w] u8) -> [b h w] Signed = img |> to Unit |> to Signed

fn through_user_fns(x: [n D], w1: [D F], w2: [F D]) -> [n D] = x |> mlp(w1, w2) |> halved
