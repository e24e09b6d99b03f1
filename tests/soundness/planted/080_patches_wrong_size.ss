## Planted bug: patches wrong size.

dim S = 16
dim P = 5

fn patches(img: [b S S]) -> [b (S/P)*(S/P) P*P] = rearrange(img, b (h p) (w q) -> b (h w) (p q), p=P, q=P)   #~ E0604
