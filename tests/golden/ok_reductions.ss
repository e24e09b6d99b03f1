## Reductions with `over=` one name or a group, and without `over=`.

dim S = 16

fn pool(x: [b n D]) -> [b D] = mean(x, over=n)

fn spatial(img: [b c h w]) -> [b c] = sum(img, over=(h w))

fn everything(x: [b n D]) -> [] = sum(x)

fn biggest(x: [b n]) -> [b] = max(x, over=n)

fn smallest(x: [b n] i32) -> [b] i32 = min(x, over=n)

fn product(x: [b n] Pos) -> [b] Pos = prod(x, over=n)

fn spread(x: [b S]) -> [b] NonNeg = std(x, over=S)

fn count(m: [b n] Mask) -> [b] i64 = sum(m, over=n)

fn all_of(m: [b n] Mask) -> [b] Mask = min(m, over=n)

fn int_sum(x: [b n] u8) -> [b] i64 = sum(x, over=n)

fn pixels(img: [b 1 S S]) -> [b] = reduce(img, b c h w -> b, mean)
