## Domains and subtyping: a narrower domain is accepted where a wider one is expected,
## and arithmetic keeps what it can prove.

dim C = 4

fn nonneg(x: [n] NonNeg) -> [n] Real = x

fn pos_is_nonneg(x: [n]) -> [n] NonNeg = exp(x)

fn prob_is_unit(x: [b C] Logit over C) -> [b C] Unit = softmax(x, over=C)

fn logprob_is_logit(x: [b C] Logit over C) -> [b C] Logit over C = log_softmax(x, over=C)

fn real_as_logit(x: [b C]) -> [b C] Prob over C = softmax(x, over=C)

fn sums(a: [n] Pos, b: [n] NonNeg) -> [n] Pos = a + b

fn products(a: [n] Unit, b: [n] Unit) -> [n] Unit = a * b

fn signs(a: [n] Signed, b: [n] Unit) -> [n] Signed = a * b

fn ratio(a: [n] NonNeg, b: [n] Pos) -> [n] NonNeg = a / b

fn even_power(x: [n]) -> [n] NonNeg = x ** 2

fn spread(x: [n 2]) -> [] NonNeg = var(x)

fn squash(x: [n]) -> [n] Unit = sigmoid(x)

fn bounded(x: [n]) -> [n] Signed = tanh(x)

fn widest(a: [n] Pos, b: [n] Unit) -> [n] NonNeg = maximum(a, b)

fn join(m: [n] Mask, a: [n] Pos, b: [n] Unit) -> [n] NonNeg = where(m, a, b)

fn smaller_bound(i: [n] Index[3]) -> [n] Index[C] = i

fn literal_unit(x: [n] Unit) -> [n] Unit = x * 0.5

fn mask_mean(m: [n] Mask) -> [] Unit = mean(m)

fn mask_count(m: [n] Mask) -> [] i64 = sum(m)

fn any_of(m: [n] Mask) -> [] Mask = max(m)

fn class_mean(p: [b C] Prob over C) -> [b] Unit = mean(p, over=C)

fn index_plus(i: [n] Index[C]) -> [n] i64 = i + 1
