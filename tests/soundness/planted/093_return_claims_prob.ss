## Planted bug: return claims prob.

dim C = 4

fn f(x: [b C]) -> [b C] Prob over C = sigmoid(x)   #~ E0701
