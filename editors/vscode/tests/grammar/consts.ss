# SYNTAX TEST "source.shapescript" "a const is declared like a dim, and is not a size"

dim D = 32
# <--- storage.type.dim.shapescript

## The norms' epsilon.
const eps = 1e-6
# <----- storage.type.const.shapescript
#     ^^^ variable.other.constant.declaration.shapescript
#           ^^^^ constant.numeric.shapescript

const half = D / 2
# <----- storage.type.const.shapescript
#     ^^^^ variable.other.constant.declaration.shapescript
#                ^ constant.numeric.shapescript

const use_gelu = true
#     ^^^^^^^^ variable.other.constant.declaration.shapescript
#                ^^^^ constant.language.shapescript

const approximate = "tanh"
#                   ^^^^^^ string.quoted.double.shapescript

fn norm(x: [b D], e: float = eps) -> [b D] = rms_norm(x, over=D, eps=e)
#                    ^^^^^ storage.type.dtype.shapescript
