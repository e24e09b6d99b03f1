## Planted bug: topk of a short axis.

fn top3(x: [b n]) -> [b 3]:
    v, i = topk(x, 3, over=n)   #~ ShapeError
    return v
#= top3(t(2, 2))
