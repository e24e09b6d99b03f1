## A linear probe: class scores of each point, trained on made-up data.

import python torch

## Features of each point.
dim D = 8
## The classes.
dim C = 3
## Points in the training set.
dim N = 256
## Points per batch.
dim Batch = 32

## The probe's weights.
model Probe:
    ## One column of scores per class.
    param w: [D C]

## The class scores of each point: the function we export.
export fn scores(x: [b D], w: [D C]) -> [b C] Logit over C:
    return x @ w

## The mean cross-entropy of the probe's scores against the labels.
fn loss(m: Probe, x: [b D], y: [b] Index[C]) -> [] NonNeg:
    return cross_entropy(scores(x, m.w), y, over=C)

## Trains a probe for a few passes, reports its loss, and saves it to `probe.safetensors`.
fn main():
    torch.manual_seed(0)
    x = randn[N D]
    y = argmax(x @ randn[D C], over=C)
    m = Probe.init(seed=0)
    opt = adamw(m, lr=0.05)
    for epoch in 0..5:
        for xb, yb in batches(shuffle((x, y), seed=epoch), size=Batch):
            l, grads = value_and_grad(loss, m, xb, yb)
            update(m, grads, opt)
        report(epoch, loss=loss(m, x, y))
    save("probe.safetensors", m)
