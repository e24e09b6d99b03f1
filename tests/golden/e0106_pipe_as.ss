## `x |> f as T` would assert the type of `f`, not of the pipe's result.

import python torch

dim D = 32

fn saved() -> [D] = "w.pt" |> torch.load as [D]   #~ E0106

fn placeholder(x: [n]) -> [n] = _ + x   #~ E0101

fn two_slots(x: [n], y: [n]) -> [n] = x |> add(_, _)   #~ E0101
