## Planted bug: mask index wrong axis.

fn sel(x: [n D], m: [D] Mask) -> [?k D] = x[m]   #~ E0401
