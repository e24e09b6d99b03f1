## Ranks that differ from the declared ones.

dim D = 32

fn pool(x: [b n D]) -> [b D] = x   #~ E0402

fn call(x: [n D]) -> [D] = pool(x)   #~ E0402

fn assert_rank(x: [n D]) -> [n] = x as [n]   #~ E0402

fn square_mask(x: [n]) -> [n] Mask = causal[n]   #~ E0402

fn mask_rank(x: [n], m: [n n] Mask) -> [?k] = x[m]   #~ E0402
