fn f(x: [n]) -> [n] Mask = () and (x > 0.0)
