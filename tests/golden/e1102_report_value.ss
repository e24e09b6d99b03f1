## `report` values are host numbers or `[]` tensors.

fn log_scores(step: int, scores: [n]):
    report(step, scores=scores)   #~ E1102

fn log_name(step: int, name: str):
    report(step, name=name)   #~ E1102

fn fine(step: int, scores: [n]):
    report(step, mean=mean(scores), step_size=0.1)
