## Literal indices and slices out of bounds, and tuples of the wrong length.

dim L = 3

fn last(pair: [2 n]) -> [n] = pair[2]   #~ E0406

fn negative(pair: [2 n]) -> [n] = pair[-3]   #~ E0406

fn window(x: [L n]) -> [4 n] = x[0..4]   #~ E0406

fn too_many(x: [n]) -> [] = x[0, 0]   #~ E0406

fn pair(x: [n]) -> ([n], [n]) = (x, x)

fn third(x: [n]) -> [n] = pair(x)[2]   #~ E0406

fn three_names(x: [n]) -> [n]:
    a, b, c = pair(x)   #~ E0406
    return a

fn scalar(x: []) -> [] = x[0..1]   #~ E0406
