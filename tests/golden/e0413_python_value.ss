## Where a shape matters, a Python value needs an `as`.

import python torch

dim D = 32
dim C = 4

fn saved_head() -> [D C]:
    return torch.load("weights.pt")[5]   #~ E0413

fn argument(x: [n D]) -> [n C] = x @ torch.load("w.pt")   #~ E0413

fn reduced() -> [D] = sum(torch.ones(4, 32), over=n)   #~ E0413

fn converted() -> [D] Unit = torch.rand(32) to Unit   #~ E0413

fn extern_arg(x: [n D]) -> [n D] = gelu(torch.randn(3, 32))   #~ E0413

fn fine() -> [D C] = torch.load("weights.pt")[5] as [D C]
