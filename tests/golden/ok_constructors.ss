## Shape-indexed constructors and their dtypes and domains.

dim D = 8

fn masked(scores: [n n]) -> [n n] = where(causal[n n], scores, -1e9)

fn blank(x: [b n D]) -> [b n D] NonNeg = zeros[b n D]

fn filled(x: [b D]) -> [b D] Pos = ones[b D]

fn half_ones() -> [D] bf16 = ones[D] bf16

fn identity() -> [D D] Unit = eye[D D]

fn positions(x: [n D]) -> [n] Index[n] = arange[n]

fn half_positions() -> [D/2] i64 = arange[D/2]

fn noise(x: [b D]) -> [b D] = randn[b D]

fn uniform(x: [b n]) -> [b n] Unit = rand[b n]

fn minus_inf(x: [n]) -> [n n] = full[n n](-1e9)

fn int_zeros(x: [n]) -> [n] i32 = full[n] i32(0)

fn all_true(x: [n]) -> [n] Mask = full[n](true)
