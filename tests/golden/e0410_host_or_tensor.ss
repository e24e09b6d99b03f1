## A tensor where a host value is needed, or the reverse.

fn scale(x: [n], k: float) -> [n] = x * k

fn normalise(x: [n]) -> [n] = scale(x, mean(x))   #~ E0410

fn host_ends(x: [n]) -> [n]:
    for i in 0..sum(x):   #~ E0410
        x = x * 2.0
    return x

fn index_float(x: [n]) -> [] = x[1.5]   #~ E0410

fn str_math(s: str) -> str = s + s   #~ E0404

fn host_return(x: [n]) -> float = x   #~ E0410

fn tensor_param(x: [n]) -> [n] = scale(x, "two")   #~ E0404

fn range_value(x: [n]) -> [n]:
    r = 0..3   #~ E0410
    return x
