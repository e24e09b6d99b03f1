## A dedent to a column no enclosing block uses.

fn scale(x: [n]) -> [n]:
    y = x * 2.0
  return y   #~ E0102
