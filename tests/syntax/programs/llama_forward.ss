fn forward(m: Llama, ids: [b n] Index[V], pos: [b n] Index[P]) -> [b n V] Logit over V:
    x = embedding(ids, m.embed)
    for l in 0..L:
        x = block(m, x, pos, l)
    return x |> rms_norm(over=D, weight=m.norm, eps=1e-5) |> linear(m.output)
