"""Checking a program gives the same result whatever the process checked before.

The checker numbers the unknown sizes it makes (``?k#3``); the numbering belongs to
the body being checked, never to the process, so a program's types, its diagnostics and
its generated code don't change when another program was checked first.
"""

import dataclasses

from shapescript.check.types import TensorType, TupleType
from shapescript.compiler import check_program, compile_source

PROGRAM = """\
dim D = 4

fn masked(x: [n D], m: [n] Mask) -> [?k D] = x[m]
fn twice(x: [n D], m: [n] Mask) -> [?k D]:
    y = masked(x, m)
    return y * 2.0
fn slice(x: [n D], a: int, b: int) -> [?k D] = x[a..b]
fn grow(x: [n D]) -> [?k D]:
    y = x as [?s D]
    for i in 0..3:
        y = concat((y, x), over=s)
    return y
fn flat(x: [b ...]) -> [?k b] = rearrange(x, b ... -> (...) b)
"""

# Another program making many unknown sizes: before the fix they shifted the numbering.
OTHER = "dim D = 4\n" + "".join(
    f"fn g{i}(x: [n D], m: [n] Mask, a: int) -> [?k D] = x[m][a..a + 1]\n"
    f"fn h{i}(x: [b ...]) -> [?k b] = rearrange(x, b ... -> (...) b)\n" for i in range(20))


def _size_names(t: object) -> list[list[str]]:
    """The internal names of a type's axis sizes (``repr`` shows ``?k``, not ``?k#3``)."""
    if isinstance(t, TupleType):
        return [n for x in t.items for n in _size_names(x)]
    if isinstance(t, TensorType):
        return [sorted(ax.size.free_vars()) for ax in t.axes]
    return []


def _types(src: str) -> list[str]:
    """Every expression's type, in a fixed walk order of the tree."""
    program = check_program(src, "p.ss")
    assert program.ok, program.diagnostics
    cm = program.main
    out: list[str] = []

    def walk(node: object) -> None:
        if dataclasses.is_dataclass(node):
            t = cm.types.get(node)
            if t is not None:
                out.append(f"{type(node).__name__}: {t!r} {_size_names(t)}")
            for f in dataclasses.fields(node):
                walk(getattr(node, f.name))
        elif isinstance(node, (tuple, list)):
            for x in node:
                walk(x)

    walk(cm.env.module)
    return out


def test_types_do_not_depend_on_an_earlier_check():
    first = _types(PROGRAM)
    _types(OTHER)
    assert _types(PROGRAM) == first
    assert any("?k#" in t for t in first)  # the program does make numbered unknowns


def test_generated_code_does_not_depend_on_an_earlier_check():
    first = compile_source(PROGRAM, "p.ss").python
    assert first is not None
    compile_source(OTHER, "o.ss")
    assert compile_source(PROGRAM, "p.ss").python == first
