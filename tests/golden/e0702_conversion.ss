## `to` conversions that don't exist.

dim C = 4

fn pixels(img: [b h w] u8) -> [b h w] Signed = img |> to Signed   #~ E0702

fn clamp_free(x: [n]) -> [n] Unit = x to Unit   #~ E0702

fn probs(x: [b C] Logit over C) -> [b C] Prob over C = x to Prob over C   #~ E0702

fn host(s: str) -> [] = s to f32   #~ E0702

fn shape(x: [n]) -> [n 1] = x to [n 1]   #~ E0702

fn index(x: [n] i64) -> [n] Index[C] = x to Index[C]   #~ E0702
