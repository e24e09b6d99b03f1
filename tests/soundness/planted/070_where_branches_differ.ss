## Planted bug: where branches differ.

fn pick(m: [n] Mask, a: [n], b: [k]) -> [n] = where(m, a, b)   #~ E0402
