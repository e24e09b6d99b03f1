## `as` on a Python value, in an exported function, through a variable.

dim D = 768

import python numpy

export fn scale(x: [n D]) -> [n D]:
    w = numpy.ones(768)   #~ E1701
    return x * (w as [D])   #~ E1703
