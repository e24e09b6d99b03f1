## Planted bug: outer instead of elementwise.

fn err(pred: [b], target: [n]) -> [b] = pred - target   #~ E0402
