## Planted bug: broadcast mask other axes.

fn masked(s: [b n m], mask: [m k] Mask) -> [b n m] = where(mask, s, -1e9)   #~ E0402
