## A host value where a size expression is expected.

dim D = 32

fn split_heads(x: [n D], heads: int) -> [n 4 8] = rearrange(x, n (h d) -> n h d, h=heads)   #~ E0304

fn count(x: [n], k: int) -> [n] = k |> map(i => x[i])   #~ E0304

fn parts(x: [n D], k: int) -> ([n 16], [n 16]) = split(x, over=D, sizes=(k, 16))   #~ E0304

fn dots(x: [n ...+1]) -> [n] = x[0]   #~ E0304
