## `as` asserts; it never converts a dtype.

fn halve(x: [n] f32) -> [n] f16 = x as [n] f16   #~ E0703

fn host(k: int) -> [] = k as [] f32   #~ E0703

fn to_str(k: int) -> str = k as str   #~ E0703

fn fine(x: [n] f32) -> [n] f16 = x to f16
