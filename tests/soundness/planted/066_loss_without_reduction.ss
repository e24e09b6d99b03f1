## Planted bug: loss without reduction.

fn mse(pred: [b], y: [b]) -> [] = (pred - y) * (pred - y)   #~ E0402
