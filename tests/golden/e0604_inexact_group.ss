## A group whose unknown can't be solved exactly.

dim D = 30

fn split_heads(x: [n D]) -> [n 4 D/4] = rearrange(x, n (h d) -> n h d, h=4)   #~ E0604

fn two_unknowns(x: [n D]) -> [n D] = rearrange(x, n (h d) -> n (d h))   #~ E0604
