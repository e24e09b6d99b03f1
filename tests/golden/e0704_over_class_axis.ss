## A reduction or class-axis operation on a class-marked value must be over its class axis.

dim C = 4

fn best_scores(logits: [b C] Logit over C) -> [C] = max(logits, over=b)   #~ E0704

fn batch_mean(p: [b C] Prob over C) -> [C] = mean(p, over=b)   #~ E0704

fn softmax_batch(logits: [b C] Logit over C) -> [b C] = softmax(logits, over=b)   #~ E0704

fn fine(logits: [b C] Logit over C) -> [C] = max(logits as [b C], over=b)
