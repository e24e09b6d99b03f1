## More than one `...` in a type.

extern fn mix(x: [... ... i] Float) -> [... i] Float = "torch.tanh"   #~ E1709

fn pick(x: [... n ...]) -> [n] = x   #~ E1709

fn fine(x: [... n]) -> [... n] = x
