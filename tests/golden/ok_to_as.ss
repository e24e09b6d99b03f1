## `to` converts dtypes and domains; `as` asserts types, on Python values and tensors.

import python torch

dim D = 4
dim C = 3

fn unit(img: [b h w] u8) -> [b h w] Unit = img to Unit

fn signed(img: [b h w] u8) -> [b h w] Signed = img |> to Unit |> to Signed

fn back(x: [n] Signed) -> [n] Unit = x to Unit

fn both(img: [n] u8) -> [n] f16 Unit = img to f16 Unit

fn as_float(i: [n] Index[C]) -> [n] f32 NonNeg = i to f32

fn bytes_float(x: [n] u8) -> [n] NonNeg = x to f32

fn int_float(i: [n] i64) -> [n] f32 = i to f32

fn mask_float(m: [n] Mask) -> [n] Unit = m to f32

fn truncate(x: [n] f32) -> [n] i32 = x to i32

fn loaded() -> [D C] = torch.load("w.pt") as [D C]

fn some_rows(x: [n D], keep: [n] Mask) -> [?k D]:
    y = x[keep] as [?m D]
    return y

fn probs(x: [b C]) -> [b C] Prob over C = x as [b C] Prob over C

fn host() -> int = torch.get_num_threads() as int

fn bounded(i: [n] i64) -> [n] Index[C] = i as [n] Index[C]
