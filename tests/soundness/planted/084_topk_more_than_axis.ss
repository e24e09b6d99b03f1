## Planted bug: topk more than axis.

dim C = 3

fn top(x: [b C]) -> [b 5]:
    v, i = topk(x, 5, over=C)   #~ E0406
    return v
