## A data-dependent size asserted by `as`, in an exported function:
##
##     shapescript export examples/nonempty.ss -o tokens.pt2
##
## `nonempty_rows` keeps the patches that have any ink, a number known only when the
## program runs (`?k`); `as [N P*P*3]` asserts it is every patch. The exported program
## takes images of any batch size and any size that is a multiple of 16, and raises
## `RuntimeError` when the first image has an empty patch or doesn't have N patches.

## Side of each square patch, in pixels.
dim P = 16
## Patches per image: 14 × 14, as in a 224 × 224 image.
dim N = 196

## Cuts each image into P×P patches, one row of values per patch.
fn patchify(img: [b 3 16gh 16gw]) -> [b (gh gw) P*P*3]:
    return rearrange(img, b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c), p1=P, p2=P)

## The rows of `x` that have a non-zero value.
fn nonempty_rows(x: [n d]) -> [?k d]:
    return x[reduce(abs(x), n d -> n, max) > 0.0]

## The patch tokens of the first image, every one of which must have ink.
export fn first_image_tokens(img: [b 3 16gh 16gw]) -> [N P*P*3]:
    tokens = patchify(img)
    return nonempty_rows(tokens[0]) as [N P*P*3]
