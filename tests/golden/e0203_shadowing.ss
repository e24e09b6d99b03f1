## Names that shadow a generic, a dim, a built-in or a reserved name.

dim D = 8
dim Real = 3   #~ E0203

fn center(x: [n]) -> [n]:
    n = mean(x)   #~ E0203
    return x - n

fn width(x: [n D], D: int) -> int = D   #~ E0203

fn sum(x: [n]) -> [] = x[0]   #~ E0203

fn local_dim(x: [n]) -> [n]:
    D = 2.0   #~ E0203
    return x * D

fn ctor_name(x: [n]) -> [n]:
    zeros = x   #~ E0203
    return x

fn loop_name(x: [n]) -> [n]:
    for n in 0..3:   #~ E0203
        x = x * 2.0
    return x

fn lambda_name(x: [n]) -> [n] = n |> map(D => x[D])   #~ E0203

fn builtin_local(x: [n]) -> [n]:
    var = x * 2.0
    return var
