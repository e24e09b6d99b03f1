## Division by a number the checker knows is 0.

dim D = 0
dim H = 4

fn scaled(x: [n]) -> [n] = x * (2.0 / (D / H))   #~ E1708

fn cancelled(x: [n]) -> [n] = x * (1.0 / (n - n))   #~ E1708

fn whole(x: [n] i64) -> [n] i64 = x % D   #~ E1708

fn floats(x: [n]) -> [n] = x / D

fn fine(x: [n]) -> [n] = x * (2.0 / (H / 2))
