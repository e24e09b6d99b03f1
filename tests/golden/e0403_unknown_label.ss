## `over=` names an axis label the value doesn't have.

dim D = 32

fn pool(x: [b n D]) -> [b D] = mean(x, over=m)   #~ E0403

fn expression(x: [b n D]) -> [b n] = sum(x, over=D * 2)   #~ E0403

fn concat_label(x: [n D]) -> [n D] = concat((x, x), over=k)   #~ E0403
