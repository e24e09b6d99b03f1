## `map` over a dim, a generic axis and a size expression; lambdas capture by reference.

dim C = 4

fn per_class_accuracy(pred: [b] Index[C], y: [b] Index[C]) -> [C]:
    return C |> map(c => (sum(pred == c and y == c) to f32) / maximum(sum(y == c) to f32, 1.0))

fn confusion(pred: [b] Index[C], y: [b] Index[C]) -> [C C] i64:
    return C |> map(t => C |> map(p => sum(y == t and pred == p)))

fn rows_doubled(x: [n m]) -> [n m] = n |> map(i => x[i] * 2.0)

fn firsts(x: [n m]) -> [n] = map(n, i => x[i, 0])

fn counts(x: [n]) -> [2*n] i64 = 2*n |> map(i => i)

fn flags(x: [n]) -> [n] Mask = n |> map(i => i > 2)
