"""Images of four shapes, with their labels, for the spotter.

``draw(n, seed)`` gives ``n`` 16×16 grayscale images as bytes, ``[n, 1, 16, 16]`` u8
(0 background, 200–255 ink), and their classes, ``[n]`` i64, indices into ``CLASSES``:
a square outline, a filled disk, a plus and a diagonal cross, each 6 to 12 pixels across,
anywhere in the image, with strokes 1 pixel wide, or 1 or 2 from 8 pixels up (a thick
stroke on a small shape fills it, and a small thick square looks like a plus or a disk). The same seed draws the same
images; everything comes from one ``torch.Generator``.
"""

from __future__ import annotations

import torch

CLASSES = ["square", "disk", "plus", "cross"]
SIDE = 16
MIN_SIZE, MAX_SIZE = 6, 12
THICK_FROM = 8                 # the smallest size drawn with 2-pixel strokes


def draw(n, seed=0):
    """``n`` images of random shapes and their classes, the same for the same ``seed``.

    >>> img, y = draw(3)
    >>> img.shape, img.dtype, y.tolist()                      # doctest: +SKIP
    (torch.Size([3, 1, 16, 16]), torch.uint8, [0, 3, 1])
    """
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, len(CLASSES), (n,), generator=g)
    size = torch.randint(MIN_SIZE, MAX_SIZE + 1, (n,), generator=g)
    width = torch.randint(1, 3, (n,), generator=g)
    width = torch.where(size >= THICK_FROM, width, torch.ones_like(width))
    # the top-left corner of each shape's box, so the whole box is in the image
    x0 = (torch.rand(n, generator=g) * (SIDE - size + 1)).floor().long()
    y0 = (torch.rand(n, generator=g) * (SIDE - size + 1)).floor().long()
    ink = torch.randint(200, 256, (n, SIDE, SIDE), generator=g)

    coords = torch.arange(SIDE)
    u = coords.view(1, 1, SIDE) - x0.view(n, 1, 1)        # column within the box
    v = coords.view(1, SIDE, 1) - y0.view(n, 1, 1)        # row within the box
    s, w = size.view(n, 1, 1), width.view(n, 1, 1)
    inside = (u >= 0) & (u < s) & (v >= 0) & (v < s)

    square = inside & ((u < w) | (u >= s - w) | (v < w) | (v >= s - w))
    c2 = s - 1                                           # twice the box's centre
    disk = (2 * u - c2) ** 2 + (2 * v - c2) ** 2 <= s * s
    bar = (s - w) // 2                                   # where a centred stroke starts
    plus = inside & (((u >= bar) & (u < bar + w)) | ((v >= bar) & (v < bar + w)))
    cross = inside & ((((u - v) >= 0) & ((u - v) < w)) | (((c2 - u - v) >= 0) & ((c2 - u - v) < w)))

    shapes = torch.stack([square, disk, plus, cross], dim=1)             # [n 4 16 16]
    mask = shapes[torch.arange(n), y]                                    # [n 16 16]
    img = torch.where(mask, ink, torch.zeros_like(ink)).to(torch.uint8)
    return img.unsqueeze(1), y


if __name__ == "__main__":
    img, y = draw(8)
    for k in range(8):
        print(CLASSES[y[k]])
        for row in img[k, 0]:
            print("".join("#" if p else "." for p in row.tolist()))
