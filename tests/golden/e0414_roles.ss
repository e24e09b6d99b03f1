## Every dim is a role: two dims of one size are still two axes.

dim C = 16
dim S = 16
dim D = 8
dim E = 8
dim H = 2
dim Dh = D / H
dim Dl = 4
dim Dout ~ D

fn pooled(x: [b C S]) -> [b C] = mean(x, over=C)   #~ E0414

fn head(x: [b D], w: [E D]) -> [b E] = x @ w   #~ E0414

fn keep(x: [b C]) -> [b C] = x

fn passed(x: [b S]) -> [b C] = keep(x)   #~ E0414

fn square(x: [b D], w: [D Dout]) -> [b D] = x @ w   #~ E0414

fn heads(x: [b n D]) -> [b H n Dl] = rearrange(x, b n (h e) -> b h n e, h=H)   #~ E0414

fn looked_up(ids: [b n] Index[E], table: [D E]) -> [b n E] = table[ids]   #~ E0414

fn annotated(x: [b C S]):
    y: [b S] = sum(x, over=S)   #~ E0414

## Equal by definition, or said on purpose, is fine.

fn pooled_ok(x: [b C S]) -> [b C] = mean(x, over=S)

fn square_ok(x: [b D], w: [D Dout]) -> [b Dout] = x @ w

fn heads_ok(x: [b n D]) -> [b H n Dh] = rearrange(x, b n (h e) -> b h n e, h=H)

fn merged(x: [b H n Dh]) -> [b n D] = rearrange(x, b h n e -> b n (h e))

fn said(x: [b C S]) -> [b C] = mean(x, over=C) as [b C]

fn literal(x: [b 16]) -> [b C] = x
