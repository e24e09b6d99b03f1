extern fn flip(input: [...] u8, dims: Axes[n]) -> [...] u8 = "torch.flip"

## Each image, mirrored left to right.
fn mirror(img: [b c h w] u8) -> [b c h w] u8 = flip(img, dims=w)
