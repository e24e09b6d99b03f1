## Found by the import-and-run stage: two `...` in an extern's type checked, and the
## module then failed to import (its run-time spec refuses them). Now E1709.
extern fn linear(input: [... ... i] Float, weight: [o i] Float) -> [... o] Float = "torch.nn.functional.linear"
