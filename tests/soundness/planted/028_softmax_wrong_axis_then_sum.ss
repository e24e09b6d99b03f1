## Planted bug: softmax wrong axis then sum.

dim C = 5

fn probs(x: [b C]) -> [b C] Prob over C = softmax(x, over=b)   #~ E0701
