## Planted bug: argmax wrong axis.

dim C = 5

fn predict(logits: [b C]) -> [b] Index[C] = argmax(logits, over=b)   #~ E0401
