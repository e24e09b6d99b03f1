## Trains the spotter (`spotter.ss`) in ShapeScript alone: its weights as a `model`,
## AdamW with a warm-up and a cosine schedule, shuffled batches, progress reports,
## the test accuracy and a checkpoint. Run it with `shapescript run train.ss`, on two
## processes with `shapescript run --nproc-per-node 2 train.ss` (docs/training.md).

import python builtins
import python shapes
import python sys
import python torch
from spotter import S, P, N, D, Dt, Dc, C, L, Images, forward, per_class_accuracy, confusion

## Training images, and test images the model never trains on.
dim Ntrain = 2000
dim Ntest = 500
## Images per batch.
dim Batch = 64
## Passes over the training images.
dim Epochs = 10
## Updates of the warm-up, before the cosine schedule.
dim Warm = 20

## The spotter's weights, in the order its functions take them.
model Spotter:
    ## A token of width D for each P×P patch.
    param w_e: [P*P D]
    ## The first layer of each block's MLP across patches.
    param tw1: [L N Dt]
    ## The second layer of each block's MLP across patches.
    param tw2: [L Dt N]
    ## The first layer of each block's MLP across channels.
    param cw1: [L D Dc]
    ## The second layer of each block's MLP across channels.
    param cw2: [L Dc D]
    ## The class scores, from the average token.
    param w_h: [D C]

## The class scores of each image.
fn scores(m: Spotter, img: Images u8) -> [b C] Logit over C:
    return forward(img, m.w_e, m.tw1, m.tw2, m.cw1, m.cw2, m.w_h)

## The mean cross-entropy of the scores against the labels.
fn loss(m: Spotter, img: Images u8, y: [b] Index[C]) -> [] NonNeg:
    return cross_entropy(scores(m, img), y, over=C)

## The likeliest class of each image.
fn guess(m: Spotter, img: Images u8) -> [b] Index[C] = argmax(scores(m, img), over=C)

## The fraction of images whose class is guessed right.
fn accuracy(m: Spotter, img: Images u8, y: [b] Index[C]) -> [] Unit = mean(guess(m, img) == y)

## Trains `m` on the images for `epochs` passes, in batches shuffled anew for each pass,
## with AdamW and a learning rate that warms up, then follows a cosine down to 0 at the
## last update; reports the loss and the batch's accuracy every 20 updates (of `steps`:
## the terminal shows the rate and the time left).
fn fit(m: Spotter, img: Images u8, y: [b] Index[C], epochs: int):
    steps = epochs * ((b + Batch - 1) // Batch)
    opt = adamw(m, lr=warmup(Warm, cosine(steps - Warm, lr=1e-2)))
    step = 0
    for epoch in 0..epochs:
        for xb, yb in batches(shuffle((img, y), seed=epoch), size=Batch):
            l, grads = value_and_grad(loss, m, xb, yb)
            update(m, grads, opt)
            if step % 20 == 0 or step == steps - 1:
                report(step, steps, loss=l, acc=accuracy(m, xb, yb))
            step = step + 1

## Trains a spotter on `shapes.draw(Ntrain, 0)` for `Epochs` passes (or as many as the
## first argument says: `shapescript run train.ss 2`), reports its progress (also to
## `spotter.jsonl`, one JSON line a report: `shapescript plot spotter.jsonl` draws it),
## prints how well it does on `shapes.draw(Ntest, 1)` and saves it to `spotter.safetensors`.
fn main():
    # The spotter's tensors are small: one thread runs them faster than several.
    torch.set_num_threads(1)
    epochs = Epochs
    if builtins.len(sys.argv) > 1:
        epochs = builtins.int(sys.argv[1]) as int
    train = shapes.draw(Ntrain, 0)
    img = train[0] as [Ntrain 1 S S] u8
    y = train[1] as [Ntrain] Index[C]
    test = shapes.draw(Ntest, 1)
    test_img = test[0] as [Ntest 1 S S] u8
    test_y = test[1] as [Ntest] Index[C]

    m = Spotter.init(seed=0)
    sink("spotter.jsonl")
    fit(m, img, y, epochs)

    pred = guess(m, test_img)
    print("test accuracy:", builtins.format(mean(pred == test_y), ".1%"))
    print(per_class_accuracy(pred, test_y))
    print(confusion(pred, test_y))
    save("spotter.safetensors", m)
    again = load("spotter.safetensors", Spotter)
    if min(guess(again, test_img) == pred):
        print("saved spotter.safetensors; reloaded, it makes the same predictions")
    else:
        print("saved spotter.safetensors, but reloaded it makes other predictions")
