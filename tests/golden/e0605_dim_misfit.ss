## A dim or a generic in a pattern that doesn't fit its axis.

dim D = 32
dim C = 4

fn transpose(x: [b D]) -> [D b] = rearrange(x, b C -> C b)   #~ E0605

fn generic(x: [b n], y: [m]) -> [b m] = rearrange(x, b m -> b m)   #~ E0605

fn keyword(x: [b D]) -> [b D] = rearrange(x, b (h w) -> b (h w), h=C, w=D)   #~ E0605
