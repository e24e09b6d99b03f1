## Neural-network layers, after `torch.nn.functional`: seen by every program, as the
## prelude is. A declaration with the same name in your file hides the one here.

## $x W^T + b$ over the last axis; `weight` is `[out in]`, as in torch.
extern fn linear(input: [... i] Float, weight: [o i] Float, bias: [o] Float = none) -> [... o] Float = "torch.nn.functional.linear"
## Layer normalization over the axis `over`.
extern fn layer_norm(x: [...] Float, over: Axis[n], weight: [n] Float = none, bias: [n] Float = none, eps: float = 1e-5) -> [...] Float = "shapescript.rt.layer_norm"
## Root-mean-square normalization over the axis `over`; `eps` defaults to the dtype's epsilon.
extern fn rms_norm(x: [...] Float, over: Axis[n], weight: [n] Float = none, eps: float = none) -> [...] Float = "shapescript.rt.rms_norm"
## The rows of `weight` picked by `input`.
extern fn embedding(input: [...] Index[V], weight: [V E] Float) -> [... E] Float = "torch.nn.functional.embedding"
## Attention of `query` over `key` and `value`, with an optional mask of allowed pairs.
extern fn scaled_dot_product_attention(query: [b H n Dh] Float, key: [b H m Dh] Float, value: [b H m Dv] Float, attn_mask: [n m] Mask = none, scale: float = none) -> [b H n Dv] Float = "torch.nn.functional.scaled_dot_product_attention"
## A 2-D convolution; `weight` is `[out in kh kw]`. The padded input must be at least
## the kernel (a `ShapeError` when it runs otherwise).
extern fn conv2d(input: [b c h w] Float, weight: [o c kh kw] Float, bias: [o] Float = none, stride: Size[St] = 1, padding: Size[Pd] = 0) -> [b o (h + 2*Pd - kh)/St + 1 (w + 2*Pd - kw)/St + 1] Float = "shapescript.rt.conv2d"
## Zeroes each value with probability `p` and scales the rest by $1/(1-p)$, in training
## mode only (`with Train:`); elsewhere the identity.
extern fn dropout(x: [...] Float, p: float = 0.5) -> [...] Float = "shapescript.rt.dropout"
