## A `devices` line names a device torch knows: a misspelt one is an error, not a
## module that fails when it's imported.

devices cu  #~ E0201

dim D = 4

fn twice(x: [n D]) -> [n D] = x + x
