## Broadcasting by label, not by position, and matmul's leading axes.

dim D = 8
dim C = 4

fn center(x: [b n D]) -> [b n D] = x - mean(x, over=D)

fn outer(a: [b n], k: [m]) -> [b n m] = a * k

fn reordered(a: [D], x: [b n D]) -> [D b n] = a * x

fn by_label(x: [b n D], y: [n b]) -> [b n D] = x * y

fn host_number(x: [b n D]) -> [b n D] = 2.0 * x + 1

fn scalar_tensor(x: [b n D], s: []) -> [b n D] = x * s

fn head(x: [b D], w: [D C]) -> [b C] = x @ w

fn batched(a: [b n D], w: [b D C]) -> [b n C] = a @ w

fn vec_mat(v: [D], w: [D C]) -> [C] = v @ w

fn dot(u: [D], v: [D]) -> [] = u @ v

fn repeated_labels(a: [n n], b: [n n]) -> [n n] = a + b

fn promote(a: [n] bf16, s: [] f32) -> [n] bf16 = a * s

fn widen(a: [n] bf16, b: [n] f32) -> [n] f32 = a * b

fn int_div(a: [n] i64, b: [n] i64) -> [n] f32 = a / b

fn bytes_compare(x: [n] u8) -> [n] Mask = x > 0.5
