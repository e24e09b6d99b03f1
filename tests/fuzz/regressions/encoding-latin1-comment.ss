# café au lait
fn f(x: [n]) -> [n] = x
