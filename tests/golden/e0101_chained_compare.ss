## Comparisons don't chain.

fn between(a: float, lo: float, hi: float) -> bool = lo < a < hi   #~ E0101
