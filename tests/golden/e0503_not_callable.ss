## Calling what isn't a function, and functions used as values.

fn apply(x: [n], w: [n]) -> [n] = w(x)   #~ E0503

fn double(x: [n]) -> [n] = x * 2.0

fn as_value(x: [n]) -> [n]:
    f = double   #~ E0503
    return x

fn builtin_value(x: [n]) -> [n]:
    g = sum   #~ E0503
    return x

fn lambda_outside(x: [n]) -> [n]:
    h = (i => i)   #~ E0503
    return x

fn constructor_call(x: [n]) -> [n] = zeros(3)   #~ E0503

fn map_needs_lambda(x: [n]) -> [n] = n |> map(double)   #~ E0503

model M:
    param w: [4] = gaussian(1.0)   #~ E0503
