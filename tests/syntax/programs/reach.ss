import python torch
dim K = 8
fn smooth(x: [n K]) -> [n K] = (x |> torch.sinc) as [n K]   # E1701, reached from f and g; no E1703
export fn f(x: [n K]) -> [n K] = smooth(x)
export fn g(x: [n K]) -> [n K]:
    z = torch.zeros(8)                # E1701
    return smooth(x) + (z as [K])     # E1703
