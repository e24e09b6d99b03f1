## `import layers`: its dims, aliases, models and functions, by dotted names.

import layers

dim Hidden = layers.D * 2

fn block(m: layers.Mlp, x: [b n layers.D]) -> [b n layers.D] = x + layers.mlp(m, x)

fn width() -> int = layers.D

fn tokens(x: layers.Tokens) -> layers.Tokens = layers.norm(x)

fn hidden(x: [n Hidden]) -> [n 16] = x

fn piped(x: [b n layers.D]) -> [b n layers.D] = x |> layers.norm

fn pooled(x: [b n layers.D]) -> [b n] = mean(x, over=layers.D)

fn probs(x: [b layers.D], w: [layers.D layers.C]) -> [b layers.C] Unit:
    return softmax(layers.head(x, w), over=layers.C)

fn scores(x: layers.Scores) -> [b layers.C] = x

fn field(m: layers.Mlp, x: [n layers.D]) -> [n layers.F] = x @ m.w1
