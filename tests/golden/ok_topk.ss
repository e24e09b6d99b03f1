## `topk`, `argmax`, `cross_entropy` and the other class-axis operations.

dim C = 10
dim K = 3

fn best(scores: [b C]) -> ([b K], [b K] Index[C]) = topk(scores, K, over=C)

fn best_two(scores: [b C]) -> [b 2] Index[C]:
    vals, idx = topk(scores, 2, over=C)
    return idx

fn predict(logits: [b C] Logit over C) -> [b] Index[C] = argmax(logits, over=C)

fn loss(logits: [b C] Logit over C, y: [b] Index[C]) -> [] NonNeg = cross_entropy(logits, y, over=C)

fn seq_loss(logits: [b n C], y: [b n] Index[C]) -> [] NonNeg = cross_entropy(logits, y, over=C)

fn swapped_labels(logits: [b n C], y: [n b] Index[C]) -> [] NonNeg = cross_entropy(logits, y, over=C)

fn lowest(x: [b n]) -> [b] Index[n] = argmin(x, over=n)

fn total(x: [b C] Logit over C) -> [b] = logsumexp(x, over=C)
