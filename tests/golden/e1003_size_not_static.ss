## A `Size[K]` argument is known before the program runs.

extern fn roll(input: [...] u8, shifts: Size[K], dims: Axis[n]) -> [...] u8 = "torch.roll"

fn shift(img: [b c h w] u8, by: int) -> [b c h w] u8 = roll(img, by, dims=w)   #~ E1003

fn generic(img: [b c h w] u8) -> [b c h w] u8 = roll(img, h, dims=w)   # a generic's size: passed when it runs

fn topk_host(x: [b n], k: int) -> [b 2] = topk(x, k, over=n)[0]   #~ E1003

fn dims_are_fine(img: [b c h w] u8) -> [b c h w] u8 = roll(img, 2 * 3, dims=w)
