## Element-wise maths, softmax and friends: the prelude every ShapeScript program sees.
## Each is an `extern fn` into torch or into `shapescript.rt`; a declaration with the
## same name in your file hides the one here.

## $e^x$, element-wise.
extern fn exp(input: [...] Float) -> [...] Float Pos = "torch.exp"
## The natural logarithm, element-wise.
extern fn log(input: [...] Float) -> [...] Float = "torch.log"
## The square root, element-wise (NaN below 0).
extern fn sqrt(input: [...] Float) -> [...] Float NonNeg = "torch.sqrt"
## $x^2$, element-wise.
extern fn square(input: [...] Float) -> [...] Float NonNeg = "torch.square"
## $|x|$, element-wise.
extern fn abs(input: [...] Float) -> [...] Float NonNeg = "torch.abs"
## The sine, element-wise.
extern fn sin(input: [...] Float) -> [...] Float Signed = "torch.sin"
## The cosine, element-wise.
extern fn cos(input: [...] Float) -> [...] Float Signed = "torch.cos"
## The hyperbolic tangent, element-wise.
extern fn tanh(input: [...] Float) -> [...] Float Signed = "torch.tanh"
## The logistic function $1 / (1 + e^{-x})$, element-wise.
extern fn sigmoid(input: [...] Float) -> [...] Float Unit = "torch.sigmoid"
## $\max(x, 0)$, element-wise.
extern fn relu(input: [...] Float) -> [...] Float NonNeg = "torch.relu"
## $x \cdot \sigma(x)$, element-wise.
extern fn silu(input: [...] Float) -> [...] Float = "torch.nn.functional.silu"
## The Gaussian error linear unit; `approximate="tanh"` for the tanh form.
extern fn gelu(input: [...] Float, approximate: str = "none") -> [...] Float = "torch.nn.functional.gelu"
## Limits each value to `[min, max]`.
extern fn clamp(input: [...] Float, min: float = none, max: float = none) -> [...] Float = "torch.clamp" with min or max
## The softmax over the class axis `over`.
extern fn softmax(x: [...] Float Logit over n, over: Axis[n]) -> [...] Float Prob over n = "shapescript.rt.softmax"
## The log-softmax over the class axis `over`.
extern fn log_softmax(x: [...] Float Logit over n, over: Axis[n]) -> [...] Float LogProb over n = "shapescript.rt.log_softmax"
## The running sum along the axis `over`.
extern fn cumsum(x: [...] Float, over: Axis[n]) -> [...] Float = "shapescript.rt.cumsum"
## The number of processes training together (`shapescript run --nproc-per-node`,
## `torchrun`); 1 in a single process. A host number: dims never depend on it.
extern fn world_size() -> int = "shapescript.rt.world_size"
## This process's rank among them, from 0; 0 in a single process.
extern fn rank() -> int = "shapescript.rt.rank"
