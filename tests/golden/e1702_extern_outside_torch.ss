## An extern fn outside torch, called by an exported function.

extern fn mystery(x: [...]) -> [...] = "mylib.mystery"

extern fn fine(x: [...]) -> [...] = "torch.special.expit"

export fn f(x: [n]) -> [n]:
    return mystery(x) + fine(x)   #~ E1702

fn not_exported(x: [n]) -> [n] = mystery(x)
