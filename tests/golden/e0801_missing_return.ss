## A function with a return type returns on every path.

fn rectify(x: [n], on: bool) -> [n]:   #~ E0801
    if on:
        return relu(x)

fn looped(x: [n]) -> [n]:   #~ E0801
    for i in 0..3:
        return x

fn bare(x: [n]) -> [n]:
    return   #~ E0801

fn both_branches(x: [n], on: bool) -> [n]:
    if on:
        return relu(x)
    else:
        return x
