## A pattern name on one side only, and an unknown `reduce` operation.

fn squeeze_rows(x: [b h w]) -> [b h] = rearrange(x, b h w -> b h)   #~ E0602

fn invent(x: [b h]) -> [b h 3] = rearrange(x, b h -> b h w)   #~ E0602

fn median(x: [b h w]) -> [b] = reduce(x, b h w -> b, median)   #~ E0602

fn missing_op(x: [b h w]) -> [b] = reduce(x, b h w -> b)   #~ E0602
