## Planted bug: index negative past start.

fn first(triple: [3 n]) -> [n] = triple[-4]   #~ E0406
