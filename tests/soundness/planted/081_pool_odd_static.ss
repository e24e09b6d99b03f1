## Planted bug: pool odd static.

fn pool2(img: [b c 7 7]) -> [b c 3 3] = reduce(img, b c (h 2) (w 2) -> b c h w, max)   #~ E0604
