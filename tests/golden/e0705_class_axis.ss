## A class axis that the type doesn't have exactly once.

dim D = 32
dim C = 4

fn head(x: [b D], w: [D C]) -> [b C] Logit over K = x @ w   #~ E0705

fn twice(x: [C C] Logit over C) -> [C C] = x   #~ E0705

fn no_axis(x: [b C] Logit) -> [b C] = x   #~ E0705

fn relabel(x: [b C]) -> [b C] = x to Prob over K   #~ E0705

fn ambiguous(x: [b n n]) -> [b n n] = softmax(x, over=n)   #~ E1002
