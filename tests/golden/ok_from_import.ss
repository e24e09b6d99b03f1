## `from layers import …`, with `as` renaming.

from layers import D, Mlp, mlp, norm as layer_norm_, Tokens

fn block(m: Mlp, x: [b n D]) -> [b n D] = x + mlp(m, x)

fn normed(x: Tokens) -> Tokens = layer_norm_(x)

fn width(x: [n D]) -> int = D

fn fresh() -> Mlp = Mlp.init(seed=0)

from layers import C, head

fn probs(x: [b D], w: [D C]) -> [b C] Prob over C = softmax(head(x, w), over=C)

fn first_field(m: Mlp, x: [n D]) -> [n D] = (x @ m.w1) @ m.w2 + x
