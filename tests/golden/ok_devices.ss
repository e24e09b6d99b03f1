## A `devices` line names the program's device.

devices cuda[0]

dim D = 4

fn ones_here(x: [n D]) -> [n D] = x + ones[n D]
