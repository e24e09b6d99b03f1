## DECISIONS §22: each site once, at its own location, naming every exported function
## that reaches it; no E1703 where the `as` operand is itself an E1701 site.

import python torch
dim K = 8
fn smooth(x: [n K]) -> [n K] = (x |> torch.sinc) as [n K]   #~ E1701
export fn f(x: [n K]) -> [n K] = smooth(x)
export fn g(x: [n K]) -> [n K]:
    z = torch.zeros(8)                #~ E1701
    return smooth(x) + (z as [K])     #~ E1703
