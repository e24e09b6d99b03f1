## A token where none can be: the declaration is skipped, the next one still checked.

fn double(x: [n]) -> [n] = x * * 2.0   #~ E0101

fn triple(x: [n]) -> [n] = x * 3.0

fn broken_too(x: [n]) -> [n] = )   #~ E0101
