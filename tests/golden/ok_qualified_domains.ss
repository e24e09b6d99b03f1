## A class axis from an imported module: `Prob over layers.C`.

import layers

fn probs(x: [b layers.C]) -> [b layers.C] Prob over layers.C:
    return softmax(x, over=layers.C)

fn back(p: [b layers.C] Prob over layers.C) -> [b layers.C] Logit over layers.C:
    return log(p) as [b layers.C] Logit over layers.C

