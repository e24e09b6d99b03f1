## Planted bug: broadcast sizes differ.

fn f(x: [b n], y: [b m]) -> [b n] = x + y   #~ E0402
