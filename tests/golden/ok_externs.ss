## `extern fn`: `...`, `Size[K]`, `Axis[n]`, `Axes[n]`, floor division in return types,
## optional parameters, and a declaration that hides the prelude's.

dim S = 16

## The complementary error function.
extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"

extern fn roll(input: [...] u8, shifts: Size[K], dims: Axis[n]) -> [...] u8 = "torch.roll"

extern fn flip(input: [...] u8, dims: Axes[n]) -> [...] u8 = "torch.flip"

extern fn max_pool2d(input: [b c h w], kernel_size: Size[K], stride: Size[St]) -> [b c (h - K)/St + 1 (w - K)/St + 1] = "torch.nn.functional.max_pool2d"

extern fn nonzero_rows(x: [n D]) -> [?k D] = "torch.nonzero"

## Hides the prelude's `gelu`.
extern fn gelu(input: [...] Float) -> [...] Float = "torch.nn.functional.gelu"

fn tail(x: [b D]) -> [b D] NonNeg = erfc(x)

fn nudge(img: [b c h w] u8) -> [b c h w] u8 = roll(img, 1, dims=w)

fn mirror(img: [b c h w] u8) -> [b c h w] u8 = flip(img, dims=w)

fn thumbnail(img: [b 1 S S]) -> [b 1 7 7] = max_pool2d(img, 3, stride=2)

fn dim_shift(img: [b c h w] u8) -> [b c h w] u8 = roll(img, S / 4, dims=h)

fn rows(x: [n 4]) -> [?k 4] = nonzero_rows(x)

fn smooth(x: [n 4]) -> [n 4] = gelu(x)

fn normed(x: [b n D], w: [D]) -> [b n D] = layer_norm(x, over=D, weight=w)

fn rms(x: [b n D], w: [D]) -> [b n D] = rms_norm(x, over=D, weight=w, eps=1e-5)

fn summed(x: [b n]) -> [b n] = cumsum(x, over=n)
