## The number of arguments.

fn mix(a: [n], b: [n], t: float) -> [n] = a * (1.0 - t) + b * t

fn halfway(a: [n], b: [n]) -> [n] = mix(a, b)   #~ E0501

fn extra(a: [n], b: [n]) -> [n] = mix(a, b, 0.5, 0.1)   #~ E0501

fn reduction(a: [n], b: [n]) -> [] = sum(a, b)   #~ E0501

fn pick(a: [n]) -> [] Index[n] = argmax(a)   #~ E0501

fn filled(a: [n]) -> [n] = full[n]   #~ E0501

fn zeros_value(a: [n]) -> [n] = zeros[n](1.0)   #~ E0501

fn vag_args(a: [n]) -> [n] = maximum(a)   #~ E0501
