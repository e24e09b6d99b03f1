## An `Axis[n]` argument names a label that occurs twice.

dim S = 16

extern fn roll(input: [...] u8, shifts: Size[K], dims: Axis[n]) -> [...] u8 = "torch.roll"

fn nudge(img: [b 1 S S] u8) -> [b 1 S S] u8 = roll(img, 1, dims=S)   #~ E1002

fn fine(img: [b c h w] u8) -> [b c h w] u8 = roll(img, 1, dims=w)
