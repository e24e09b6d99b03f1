## Literals: integers, floats (`1e-5`, `3.0`, `2e3`), strings, `true`, `false`, `none`.

extern fn clip(input: [...] Float, min: float = none, max: float = none) -> [...] Float = "torch.clamp"

fn eps() -> float = 1e-5

fn big() -> float = 2e3

fn negative() -> float = -1.5 / 4

fn name() -> str = "spotter"

fn yes() -> bool = true and not false

fn nothing_given(x: [n]) -> [n] = clip(x, max=none)

fn clipped(x: [n]) -> [n] = clip(x, min=0.0, max=1.0)

fn range_of_floats(x: [n]) -> [n] = x * 3.0 + 1e-3

fn int_literal(x: [n] i64) -> [n] i64 = x * 3 + 2
