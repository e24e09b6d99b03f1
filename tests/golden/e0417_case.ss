## In a pattern that names dims, a name differing from one only by case is a new axis.

dim K = 8
dim H = 2

fn mixed(x: [b t H K]) -> [b H K t] = rearrange(x, b k H n -> b H n k)   #~ E0417

## The dim's own name, another name, a name solved in a group, or one in a pattern that
## names no dim, is fine.

fn named(x: [b t H K]) -> [b H K t] = rearrange(x, b t H K -> b H K t)

fn heads(x: [b n 4*H]) -> [b H n 4] = rearrange(x, b n (h k) -> b h n k, h=H)

fn pooled(img: [b c h w]) -> [b] = reduce(img, b c h w -> b, max)
