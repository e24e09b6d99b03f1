## A group merged back in another order than it was split in is another layout.

dim D = 8
dim H = 2

fn swapped(x: [b n D]) -> [b n D]:
    y = rearrange(x, b n (h e) -> b h n e, h=H)
    return rearrange(y, b h n e -> b n (e h))   #~ E0418

fn kept(x: [b n D]) -> [b n D]:
    y = rearrange(x, b n (h e) -> b h n e, h=H)
    return rearrange(y, b h n e -> b n (h e))
