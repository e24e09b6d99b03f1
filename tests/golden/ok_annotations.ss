## Local annotations check a value's type and relabel it, at no run-time cost.

dim D = 8
dim F = 16
dim P = 4

fn hidden(x: [b n D], w: [F D]) -> [b n F]:
    h: [b n F] = linear(x, w)
    return h

fn relabelled(x: [b P*P]) -> [b] = x |> relabel

fn relabel(x: [b 16]) -> [b]:
    y: [b F] = x
    return sum(y, over=F)

fn narrower(x: [n]) -> [n] NonNeg:
    y: [n] NonNeg = relu(x)
    return y

fn host_annotation(k: int) -> float:
    f: float = k
    return f
