## An `Axis[n]` argument names a label the tensor doesn't have.

dim N = 16

extern fn roll(input: [...] u8, shifts: Size[K], dims: Axis[n]) -> [...] u8 = "torch.roll"

extern fn roll_n(input: [...] u8, dims: Axis[N]) -> [...] u8 = "torch.roll"

fn nudge(img: [b c h w] u8) -> [b c h w] u8 = roll(img, 1, dims=x)   #~ E1001

fn expression(img: [b c h w] u8) -> [b c h w] u8 = roll(img, 1, dims=h + 1)   #~ E1001

fn wrong_size(img: [b c h w] u8) -> [b c h w] u8 = roll_n(img, dims=w)   #~ E1001

fn over_absent(x: [b C]) -> [b C] = softmax(x, over=K)   #~ E1001
