## A use of an alias may add a dtype or a domain, not replace one.

dim S = 16
dim Pixels = [b 1 S S] u8
dim Probs = [b S] Prob over S

fn as_half(img: Pixels) -> Pixels f16 = img to f16   #~ E0407

fn as_unit(p: Probs Unit) -> [b S] = p   #~ E0407

fn adds(img: Pixels Mask) -> Pixels = img   #~ E0404
