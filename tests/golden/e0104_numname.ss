## A number stuck to a name is a product only where a size is expected.

fn double(x: [n]) -> [n] = 2x   #~ E0104

fn fine(x: [b 2n]) -> [b 2n] = x

extern fn roll(input: [...] u8, shifts: Size[K], dims: Axis[n]) -> [...] u8 = "torch.roll"

fn shifted(img: [b w] u8) -> [b w] u8 = roll(img, 2x, dims=w)   #~ E0104
