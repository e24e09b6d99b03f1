## Planted bug: index past end static.

fn last(pair: [2 n]) -> [n] = pair[2]   #~ E0406
