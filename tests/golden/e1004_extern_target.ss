## An extern's target is a dotted Python path, nothing else.

extern fn sneaky(x: [...] Float) -> [...] Float = "torch.exp; import os"   #~ E1004

extern fn bare(x: [...] Float) -> [...] Float = "exp"   #~ E1004

extern fn fine(x: [...] Float) -> [...] Float = "torch.special.expit"
