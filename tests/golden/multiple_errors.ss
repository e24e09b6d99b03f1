## Every error in a file is reported, sorted by position, and each only once.

dim D = 8
dim C = 4

fn a(x: [n D]) -> [n C] = x   #~ E0401

fn b(x: [n D]) -> [n D] = x * y   #~ E0201

fn c(x: [n D]) -> [n D]:
    y = mean(x, over=m)   #~ E0403
    z = x @ x   #~ E0401
    return x to Unit   #~ E0702

fn d(x: [n] u8) -> [n] Signed = x to Signed   #~ E0702

fn e(x: [n D]) -> [n D] = d(x)   #~ E0402
