## Exercises on the spotter, solved.

import python torch
from spotter import Images, S, P, N, D, Dt, Dc, C, L, forward, nudge

## Exercise 1: the likeliest class of each image and of the image nudged one pixel,
## from the sum of their class scores.
fn predict_both(img: Images u8, w_e: [P*P D], tw1: [L N Dt], tw2: [L Dt N],
                cw1: [L D Dc], cw2: [L Dc D], w_h: [D C]) -> [b] Index[C]:
    scores = forward(img, w_e, tw1, tw2, cw1, cw2, w_h)
    nudged = forward(nudge(img), w_e, tw1, tw2, cw1, cw2, w_h)
    return argmax(scores + nudged, over=C)

## Exercise 2: the average of each `kernel_size`-wide square, every `stride` pixels.
extern fn avg_pool2d(input: [b c h w], kernel_size: Size[K], stride: Size[St]) -> [b c (h - K)/St + 1 (w - K)/St + 1] = "torch.nn.functional.avg_pool2d"

## The average of each 4×4 patch.
fn tiny(img: Images) -> [b 1 4 4] = avg_pool2d(img, 4, stride=4)

## With a kernel of 5 and a stride of 3 the type is the same: (16 - 5) / 3 + 1 is 4.
fn tiny_5_3(img: Images) -> [b 1 4 4] = avg_pool2d(img, 5, stride=3)

## Exercise 3: the colleague's test images, with the shape the signature promises
## asserted where the Python value comes in. If the file holds 28×28 images, the `as`
## raises a ShapeError naming this line before anything else runs.
fn test_images() -> [?k 1 S S] u8:
    return torch.load("test.pt") as [?k 1 S S] u8
