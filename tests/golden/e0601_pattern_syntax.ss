## Pattern syntax: no operators in patterns, the right number of einsum operands,
## groups that close.

dim D = 8

fn flatten(x: [b h w]) -> [b h*w] = rearrange(x, b h w -> b (h*w))   #~ E0601

fn contract(a: [n D], w: [D m]) -> [n m] = einsum(a, w: n D -> n)   #~ E0601

fn no_pattern(x: [b h w]) -> [b h w] = rearrange(x)   #~ E0601

fn unclosed(x: [b h w]) -> [b h w] = rearrange(x, b (h w -> b h w)   #~ E0103

fn no_colon(a: [n D], w: [D m]) -> [n m] = einsum(a, w)   #~ E0601
