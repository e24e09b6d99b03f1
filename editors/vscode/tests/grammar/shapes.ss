# SYNTAX TEST "source.shapescript" "dims, axes and values are told apart"

## Width of each token.
# <-------- comment.line.documentation.shapescript

dim D = 32
#   ^ constant.other.dim.declaration.shapescript
#       ^^ constant.numeric.shapescript

dim Images = [b 1 S S]
#             ^ variable.parameter.axis.shapescript
#                 ^ constant.other.dim.shapescript
#               ^ constant.numeric.shapescript

fn norm(x: [b n D], eps = 1e-5) -> [b n D]:
#  ^^^^ entity.name.function.shapescript
#             ^ variable.parameter.axis.shapescript
#               ^ constant.other.dim.shapescript
#                         ^^ constant.numeric.shapescript

    mu = mean(x, over=D)
#   ^^ source.shapescript
#        ^^^^ entity.name.function.call.shapescript
#                     ^ constant.other.dim.shapescript

    return mean(x, over=n)
#   ^^^^^^ keyword.control.shapescript
#                       ^ variable.parameter.axis.shapescript

fn head(x: [b n D], w: [D C]) -> [b C] Logit over C = pool(x) @ w
#                                      ^^^^^ support.type.domain.shapescript
#                                                 ^ constant.other.dim.shapescript
#                                                     ^^^^ entity.name.function.call.shapescript

fn forward(img: Images u8) -> [b C]:
#                      ^^ storage.type.dtype.shapescript

    return img |> rearrange(b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c), p1=P, p2=P)
#                 ^^^^^^^^^ support.function.builtin.shapescript
#                                ^^ variable.parameter.axis.shapescript
#                                               ^^ keyword.operator.arrow.shapescript
#                                                        ^^ variable.parameter.axis.shapescript
#              ^^ keyword.operator.pipe.shapescript

    h = einsum(norm(x), w1: b N D, N Dt -> b Dt D) |> gelu
#                                  ^ constant.other.dim.shapescript
#                                                     ^^^^ entity.name.function.call.shapescript

    m = causal[n n]
#       ^^^^^^ support.function.constructor.shapescript
#              ^ variable.parameter.axis.shapescript

    y = x[0] as [?k D]
#         ^ constant.numeric.shapescript
#            ^^ keyword.operator.word.shapescript
#                ^^ variable.parameter.axis.unknown.shapescript

extern fn roll(input: [...] u8, shifts: Size[K], dims: Axis[n]) -> [...] u8 = "torch.roll"
# <------ storage.modifier.extern.shapescript
#                      ^^^ keyword.operator.ellipsis.shapescript
#                                       ^^^^ support.type.special.shapescript
#                                            ^ constant.other.dim.shapescript
#                                                           ^ variable.parameter.axis.shapescript
#                                                                             ^^^^^^^^^^^^ string.quoted.double.shapescript

import python torch
#             ^^^^^ entity.name.namespace.shapescript

    for l in 0..L:
#   ^^^ keyword.control.shapescript
#             ^^ keyword.operator.range.shapescript
#               ^ source.shapescript

model Mlp:
#     ^^^ entity.name.type.model.shapescript

    param w1: [D Dh] = normal(std=0.02)
#         ^^ variable.other.property.shapescript
#                ^^ constant.other.dim.shapescript
