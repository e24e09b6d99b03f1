## Planted bug: heads q k differ.

dim Dh = 8

fn attend(q: [b 4 n Dh], k: [b 2 m Dh], v: [b 2 m Dh]) -> [b 4 n Dh] = scaled_dot_product_attention(q, k, v)   #~ E0401
