# check --vllm: the serving rules of `forward` (E3306)
dim V = 32
dim D = 16
dim H = 2

model Tiny:
    param embed: [V D]
    param wqkv: [3*D D]
    param output: [V D]

fn forward(ids: [b n] Index[V], embed: [V D], output: [V D]) -> [b n V] Logit over V:  #~ E3306
    return embedding(ids, embed) |> linear(output)
