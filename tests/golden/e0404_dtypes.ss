## Dtypes differ where nothing converts implicitly.

fn scale(x: [n] f32) -> [n] = x * 2.0

fn scale_half(x: [n] bf16) -> [n] = scale(x)   #~ E0404

fn returned(x: [n] f16) -> [n] f32 = x   #~ E0404

fn host_param(k: int) -> int = k

fn given_str(s: str) -> int = host_param(s)   #~ E0404

fn nothing(x: [n]):
    print(x)

fn assigned(x: [n]) -> [n]:
    y = nothing(x)   #~ E0404
    return x

fn no_return_type(x: [n]):
    return x   #~ E0404

fn float_class(x: [n] i64) -> [n] = exp(x)   #~ E0404

fn labels_float(logits: [b C], y: [b] f32) -> [] = cross_entropy(logits, y, over=C)   #~ E0404
