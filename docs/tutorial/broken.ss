dim D = 8
dim C = 3

## Class scores of each token: the weights are the wrong way round.
fn scores(x: [b D], w: [C D]) -> [b C]:
    return x @ w
