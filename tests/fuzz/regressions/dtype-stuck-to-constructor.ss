dim D = 4
fn f() -> [D/2] f32 = arange[D/2]tof32
fn g(x: [D]) -> [D] = x + ones[D]aaaa
