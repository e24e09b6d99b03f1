## Named constants: host values known before the program runs, used in calls, extern
## defaults and expressions, and imported from another file.

import layers
from layers import eps as layer_eps

dim D = 8

## The norm's epsilon.
const eps = 1e-6
const base = 10000.0
const half = D / 2
const steps = 3
const approximate = "tanh"
const double_eps = layers.eps * 2 + layer_eps
const use_gelu = true

extern fn scaled_norm(x: [...] Float, over: Axis[n], weight: [n] Float = none, eps: float = eps) -> [...] Float = "shapescript.rt.rms_norm"

fn norm(x: [b D], e = eps) -> [b D] = rms_norm(x, over=D, eps=e) + scaled_norm(x, over=D)

fn rotate(x: [b D]) -> [b D]:
    inv = 1.0 / base ** ((arange[D] to f32) / half)
    out = x
    for i in 0..steps:
        out = out * inv + double_eps
    if use_gelu:
        out = gelu(out, approximate=approximate)
    return out

fn shadow(x: [b D], eps: float = eps) -> [b D] = x + eps
