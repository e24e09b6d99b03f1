## `mean`, `var` and `std` need floats.

fn mean_label(y: [b] i64) -> [] = mean(y)   #~ E0411

fn spread(y: [b n] u8) -> [b] = std(y, over=n)   #~ E0411

fn fine(y: [b] i64) -> [] = mean(y to f32)
