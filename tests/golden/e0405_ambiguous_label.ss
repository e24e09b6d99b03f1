## Labels that name more than one axis, or occur unevenly in two operands.

dim S = 16

fn brightest_row(img: [b 1 S S]) -> [b 1 S] = max(img, over=S)   #~ E0405

fn uneven(a: [n n], b: [n]) -> [n n] = a + b   #~ E0405

fn concat_twice(x: [n n]) -> [2*n n] = concat((x, x), over=n)   #~ E0405
