## Number literals beyond what a tensor holds.

fn huge(x: [n]) -> [n] = x * 1e999   #~ E0108

fn wide(x: [n] i64) -> [n] i64 = x + 9223372036854775808   #~ E0108

fn edge(x: [n] i64) -> [n] i64 = x + 9223372036854775807
