## A `[...]` value allows only what doesn't need its rank.

fn first_row(x: [... D]) -> [D] = x[0]   #~ E0409

fn pool(x: [... n]) -> [...] = mean(x, over=m)   #~ E0409

fn fixed(x: [...]) -> [4] = x   #~ E0409

fn call(x: [...]) -> [...] = needs_two(x)   #~ E0409

fn needs_two(x: [n]) -> [n] = x

fn fine(x: [... n]) -> [...] = mean(x, over=n)
