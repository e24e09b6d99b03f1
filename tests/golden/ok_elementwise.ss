## The element-wise built-ins broadcast by label, as the operators do.

fn added(x: [b n], y: [n]) -> [b n] = add(x, y)

fn subtracted(x: [b n]) -> [b n] = sub(x, 1.0)

fn multiplied(x: [b n], y: [b n]) -> [b n] = mul(x, y)

fn divided(x: [b n], y: [b]) -> [b n] = div(x, y)

fn floor_at_one(t: [n]) -> [n] Pos = maximum(t, 1.0)

fn ceiling(t: [n], c: [n]) -> [n] = minimum(t, c)

fn masked(m: [b n] Mask, x: [b n]) -> [b n] = where(m, x, -1e9)

fn mixed_where(m: [n] Mask, x: [b n]) -> [b n] = where(m, x, 0.0)

fn logic(a: [n] Mask, b: [n] Mask, flag: bool) -> [n] Mask = (a and not b) or flag

fn compare(x: [n], y: [n]) -> [n] Mask = x <= y

fn modulo(x: [n] i64) -> [n] i64 = x % 3

fn floor_div(x: [n] i64) -> [n] i64 = x // 2

fn power(x: [n] Pos) -> [n] Pos = x ** 0.5
