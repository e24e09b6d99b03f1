"""E1704: host-only values and operations in an exported function, or in anything it
calls (book chapter 17): models, modes, logs records, sinks, gradients, optimizer
state, schedules, datasets and batches, the built-ins that make or use them, changing a
model's field, and a ``for`` loop over anything but a range.

Each program marks the host-only line with ``# here``; the same code not reached from an
``export fn`` checks clean."""

from __future__ import annotations

import pytest

from shapescript.compiler import check_source

HEAD = '''
import python shapes
dim D = 4
dim C = 3

model Net:
    param w: [D C]

fn loss(m: Net, x: [n D], y: [n] Index[C]) -> [] NonNeg:
    return cross_entropy(x @ m.w, y, over=C)
'''

# kind → the body of `host(x: [n D], y: [n] Index[C], m: Net)`, with the marked line.
KINDS = {
    "model made by init": "    k = Net.init(seed=0)  # here\n",
    "model made from fields": "    k = Net(w=zeros[D C])  # here\n",
    "changing a model's field": "    m.w = zeros[D C]  # here\n",
    "with Train": "    with Train:  # here\n        z = dropout(x, p=0.1)\n",
    "report": "    report(0, loss=mean(x))  # here\n",
    "sink": "    sink(\"run.jsonl\")  # here\n",
    "value_and_grad": "    l, g = value_and_grad(loss, m, x, y)  # here\n",
    "sgd": "    opt = sgd(m, lr=0.1)  # here\n",
    "adamw": "    opt = adamw(m, lr=0.1)  # here\n",
    "cosine": "    s = cosine(10, lr=0.1)  # here\n",
    "warmup": "    s = warmup(10, 0.1)  # here\n",
    "shuffle": "    d = shuffle((x, y), seed=0)  # here\n",
    "batches": "    for xb, yb in batches((x, y), size=2):  # here\n        z = xb\n",
    "save": "    save(\"ckpt.safetensors\", m)  # here\n",
    "load": "    k = load(\"ckpt.safetensors\", Net)  # here\n",
    "print": "    print(x)  # here\n",
    "world_size": "    k = world_size()  # here\n",
    "rank": "    k = rank()  # here\n",
    "for over a Python value": "    for name in shapes.CLASSES:  # here\n        z = x\n",
}

# Built-ins that need values the kinds above make: the marked line uses one; the lines
# that make them are host-only too.
USES = {
    "update": ("    l, g = value_and_grad(loss, m, x, y)\n    opt = sgd(m, lr=0.1)\n"
               "    update(m, g, opt)  # here\n"),
    "clip_norm": ("    l, g = value_and_grad(loss, m, x, y)\n"
                  "    c = clip_norm(g, max=1.0)  # here\n"),
}


def program(body: str, exported: bool) -> str:
    # The model comes in through a helper's parameter (itself host-only when reached).
    return HEAD + (
        "\nfn host(x: [n D], y: [n] Index[C], m: Net):\n" + body +
        "\nfn fresh(x: [n D], y: [n] Index[C]):\n    host(x, y, Net.init(seed=1))\n" +
        ("export " if exported else "") +
        "fn f(x: [n D], y: [n] Index[C]) -> [n D]:\n    fresh(x, y)\n    return x\n")


def marked_line(src: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if "# here" in line)


@pytest.mark.parametrize("kind", list(KINDS) + list(USES))
def test_each_host_only_kind_is_e1704_when_exported(kind):
    body = KINDS.get(kind) or USES[kind]
    plain = program(body, exported=False)
    assert check_source(plain, "host.ss") == []
    src = program(body, exported=True)
    diags = check_source(src, "host.ss")
    assert diags, kind
    # A loop over a Python value uses Python too (E1701, the book).
    allowed = {"E1704", "E1701"} if "Python" in kind else {"E1704"}
    assert {d.code for d in diags} <= allowed, [(d.code, d.line, d.message) for d in diags]
    here = [d for d in diags if d.line == marked_line(src) and d.code == "E1704"]
    assert here, (kind, [(d.line, d.message) for d in diags])
    assert "reached from the exported function `f`" in here[0].notes[0]


def test_a_model_parameter_of_a_called_function_is_e1704():
    src = program("    z = x @ m.w\n", exported=True)
    diags = check_source(src, "host.ss")
    lines = src.splitlines()
    hit = {lines[d.line - 1].strip().split("(")[0] for d in diags}
    assert {d.code for d in diags} == {"E1704"}
    assert hit == {"fn host", "host"}              # the parameter `m: Net` and `Net.init`
    assert any("a model" in d.message for d in diags)


def test_an_exported_functions_own_model_parameter_is_e1705():
    src = HEAD + "export fn f(m: Net, x: [n D]) -> [n C] = x @ m.w\n"
    assert [d.code for d in check_source(src, "host.ss")] == ["E1705"]


def test_directly_in_the_exported_function():
    src = HEAD + "export fn f(x: [n D]) -> [n D]:\n    print(x)\n    report(0, s=sum(x))\n    return x\n"
    diags = check_source(src, "host.ss")
    first = src.splitlines().index("    print(x)") + 1
    assert [(d.code, d.line) for d in diags] == [("E1704", first), ("E1704", first + 1)]


def test_each_site_is_reported_once_naming_every_exporter():
    src = HEAD + ("fn noisy(x: [n D]):\n    print(x)\n"
                  "export fn f(x: [n D]) -> [n D]:\n    noisy(x)\n    return x\n"
                  "export fn g(x: [n D]) -> [n D]:\n    noisy(x)\n    return x\n")
    diags = check_source(src, "host.ss")
    assert len(diags) == 1 and diags[0].code == "E1704"
    assert "`f` and `g`" in diags[0].notes[0]
