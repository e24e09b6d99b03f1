## Python values: untyped until an `as`, and fine as host values (conditions, loop
## ends, what a `for` walks over, `print`, arguments of Python calls).

import python torch
import python shapes
import python numpy as np

dim D = 4

fn show_classes():
    for name in shapes.CLASSES:
        print(name)

fn maybe(x: [n D]) -> [n D]:
    if shapes.DEBUG:
        print(torch.cuda.is_available())
    return x

fn repeat_python(x: [n D]) -> [n D]:
    for i in 0..shapes.STEPS:
        x = x * 0.5
    return x

fn weights() -> [D D] = np.eye(4) as [D D]

fn passes_back(x: [n D]) -> [n D]:
    y = torch.relu(x)
    return y as [n D]

fn host(k: int) -> int:
    return shapes.count(k) as int
