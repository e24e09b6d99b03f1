# check --vllm: the serving rules of `forward` (E3305)
dim V = 32
dim D = 16
dim H = 2

model Tiny:
    param embed: [V D]
    param wqkv: [3*D D]
    param output: [V D]

fn forward(m: Tiny, ids: [b n] Index[V]) -> [b n V] Logit over V:  #~ E3305
    return embedding(ids, m.embed) |> linear(m.output)
