## A value of a wider domain where a narrower one is expected.

dim C = 4
dim V = 100

fn complement(p: [n] Unit) -> [n] Unit = 1.0 - p   #~ E0701

fn sqrt_pos(x: [n] Pos) -> [n] Pos = x

fn needs_pos(x: [n]) -> [n] Pos = sqrt_pos(x)   #~ E0701

fn forgot_signed(x: [n] Unit) -> [n] Signed = x   #~ E0701

fn gather(ids: [b n] i64, table: [V 8]) -> [b n 8] = table[ids]   #~ E0701

fn labels(logits: [b C], y: [b] i64) -> [] = cross_entropy(logits, y, over=C)   #~ E0701

fn wider_index(i: [n] Index[C]) -> [n] Index[3] = i   #~ E0701
