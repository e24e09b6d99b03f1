## An imported ShapeScript module that isn't next to the file or on Python's path.

import layres   #~ E0204

from nowhere import D   #~ E0204

fn double(x: [n]) -> [n] = x * 2.0

fn uses(x: [n D]) -> [n D] = layres.norm(x)

fn typed(x: [n layres.D]) -> layres.Tokens = x

dim Wide = D * 2
