## The complementary error function, $1 - \operatorname{erf}(x)$.
extern fn erfc(x: Real) -> NonNeg = "torch.special.erfc"

dim D = 64

fn tail(x: [b D]) -> [b D] NonNeg = erfc(x)
