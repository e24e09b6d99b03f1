## Planted bug: mean of ints.

fn avg(x: [n] i64) -> [] = mean(x)   #~ E0411
