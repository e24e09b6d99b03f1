## `with a or b` names the optional parameters a call must give at least one of.

extern fn bounded(x: [n], low: float = none, high: float) -> [n] = "torch.clamp" with low or high   #~ E0416

extern fn clipped(x: [n], low: float = none, high: float = none) -> [n] = "torch.clamp" with low or high

fn fine(x: [n]) -> [n] = clipped(x, high=1.0)

fn unbounded(x: [n]) -> [n] = clipped(x, low=none)   #~ E0415

fn missing(x: [n]) -> [n] = clipped(x)   #~ E0501
