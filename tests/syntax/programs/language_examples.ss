devices cpu                     # where the program's tensors live (cpu, cuda[0], mps …)
import python torch             # a Python module, untyped
import layers                   # another ShapeScript module (layers.ss), typed

## Width of each token.
dim D = 32                      # a static size
dim N = (S / P) * (S / P)       # sizes may be computed from other dims
dim Images = [b 1 S S]          # a shape alias; b stays generic where it is used

fn pool(x: [b n D]) -> [b D] = mean(x, over=n)

fn norm(x: [b n D], eps = 1e-5) -> [b n D]:
    mu = mean(x, over=D)
    var = mean(square(x - mu), over=D)
    return (x - mu) / sqrt(var + eps)

## A tiny MLP-Mixer.
model Mixer:
    ## Patch embedding.
    param w_e: [P*P D]
    param tw1: [L N Dt]
    param norm: [D] = ones
