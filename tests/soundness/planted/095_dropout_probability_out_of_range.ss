## Planted bug: dropout probability out of range.

fn drop(x: [n]) -> [n] = dropout(x, 1.5)   #~ E0701
