## A pattern's output axes answer to the names written for them: after
## `rearrange(l, b n v -> n b v)`, `over=v` finds the axis labelled `V`, and so does `over=V`.

dim V = 8

fn by_written_name(l: [b n V]) -> [n b]:
    t = rearrange(l, b n v -> n b v)
    return sum(t, over=v)

fn by_label(l: [b n V]) -> [n b] Index[V]:
    return argmax(rearrange(l, b n v -> n b v), over=V)

fn through_arithmetic(l: [b n V]) -> [b n]:
    scores = rearrange(l, b n v -> b n v) * 2.0
    return logsumexp(scores, over=v)

fn last_position(l: [b n V]) -> [b] Index[V]:
    return argmax(rearrange(l, b s v -> s b v)[-1], over=v)
