## Greedy generation with the GPT-2 of `gpt2.ss`, written in ShapeScript: the sequence
## grows by one token a step, so it is declared with an unknown length `?s`, and its
## positions grow with it. After `shapescript run examples/gpt2.ss` has saved
## `gpt2.safetensors`, `main` continues a counting sequence with it:
##
##     shapescript run examples/generate_gpt2.ss

from gpt2 import GPT2, forward, V, P

## The positions 0, 1, … of each sequence of `ids`.
fn positions(ids: [b n] Index[V]) -> [b n] Index[P]:
    return repeat(arange[n], n -> b n) as [b n] Index[P]

## `ids` followed by `steps` tokens, each the most likely next token given all those
## before it. Every step runs the model over the whole sequence (there is no cache).
fn generate(m: GPT2, ids: [b n] Index[V], steps: int) -> [b ?t] Index[V]:
    out: [b ?s] Index[V] = ids
    pos: [b ?s] Index[P] = positions(ids)
    for i in 0..steps:
        scores = rearrange(forward(m, out, pos), b s v -> s b v)[-1]
        next = rearrange(argmax(scores, over=V), b -> b 1)
        after = (rearrange(pos, b s -> s b)[-1] + 1) as [b] Index[P]
        out = concat((out, next), over=s)
        pos = concat((pos, rearrange(after, b -> b 1)), over=s)
    return out

## Continues 5, 7, 9, 11 with the model `gpt2.ss` trained.
fn main():
    m = load("gpt2.safetensors", GPT2)
    prompt = repeat(arange[4] * 2 + 5, n -> 1 n) as [1 4] Index[V]
    print(generate(m, prompt, 8))
