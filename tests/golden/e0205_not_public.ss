## Names starting with `_` aren't public, nor are names a module doesn't declare.

import layers
from layers import D, _private   #~ E0205

fn half(x: [n]) -> [n] = _private(x)

fn qualified(x: [n]) -> [n] = layers._private(x)   #~ E0205

fn missing(x: [n]) -> [n] = layers.nothing(x)   #~ E0205

fn dim_value() -> int = layers._hidden   #~ E0205
