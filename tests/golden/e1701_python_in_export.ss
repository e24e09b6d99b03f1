## Python in an exported function, or in anything it calls.

dim D = 768

import python torch

export fn load_qkv() -> [D 3*D]:
    return torch.load("w_qkv.pt") as [D 3*D]   #~ E1701

fn helper(x: [n D]) -> [n D] = (x * torch.pi) as [n D]   #~ E1701

export fn scaled(x: [n D]) -> [n D] = helper(x)

export fn piped(x: [n D]) -> [n D] = (x |> torch.tanh) as [n D]   #~ E1701

fn host_only(x: [n D]) -> [n D] = (x * torch.pi) as [n D]
