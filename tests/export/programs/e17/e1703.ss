dim D = 768

import python numpy

export fn scale(x: [n D]) -> [n D]:
    w = numpy.ones(768)
    return x * (w as [D])
