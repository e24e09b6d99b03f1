# SYNTAX TEST "source.shapescript" "names are Python identifiers, not ASCII only"

dim Höhe = 4
#   ^^^^ constant.other.dim.declaration.shapescript

dim Ωmega = 2
#   ^^^^^ constant.other.dim.declaration.shapescript

fn dreh(x: [ß Höhe], w: [Höhe Ωmega]) -> [ß Ωmega] = rearrange(x, ß g -> ß g) @ w
#  ^^^^ entity.name.function.shapescript
#           ^ variable.parameter.axis.shapescript
#             ^^^^ constant.other.dim.shapescript
#                             ^^^^^ constant.other.dim.shapescript
#                                         ^ variable.parameter.axis.shapescript
#                                                                 ^ variable.parameter.axis.shapescript

fn mittel(x: [b Höhe], größe: float = 2.0) -> [b] = mean(x, over=Höhe) * größe
#  ^^^^^^ entity.name.function.shapescript
#                                                   ^^^^ entity.name.function.call.shapescript
#                                                                ^^^^ constant.other.dim.shapescript
