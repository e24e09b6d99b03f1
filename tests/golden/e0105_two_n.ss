## A warning: `[2 n]` (two axes) beside `[2n]` (one) in one signature.

fn join(halves: [2 n]) -> [2n] = rearrange(halves, two n -> (two n))   #~ E0105
