## Planted bug: attention mask wrong shape.

dim Dh = 8

fn attend(q: [b H n Dh], k: [b H m Dh], v: [b H m Dh], mask: [m n] Mask) -> [b H n Dh] = scaled_dot_product_attention(q, k, v, attn_mask=mask)   #~ E0401
