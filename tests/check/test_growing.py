"""Tensors that grow in loops: a variable declared with an unknown (`out: [b ?s]`)."""

from __future__ import annotations

import re

from shapescript.codes import page
from shapescript.compiler import check_source


def codes(src: str) -> list[str]:
    return [d.code for d in check_source(src, "t.ss")]


def messages(src: str) -> str:
    return "\n".join(f"{d.message} | {[lb.message for lb in d.labels]} | {d.help}"
                     for d in check_source(src, "t.ss"))


def test_the_explain_pages_growing_example_checks_clean():
    blocks = re.findall(r"```ss\n(.*?)```", page("E0803").text, re.S)
    assert blocks and "?s" in blocks[-1]
    assert codes(blocks[-1]) == []


def test_over_names_the_axis_of_an_unknown():
    src = "fn f(x: [b n]) -> [b] = sum(x as [b ?s], over=s)\n"
    assert codes(src) == []
    assert codes("fn f(x: [b n]) -> [b] = sum(x as [b ?s], over=t)\n") == ["E0403"]


def test_an_unknown_bound_by_a_caller_is_compared_like_any_size():
    """Two different unknowns can't meet in one generic of a callee."""
    src = """
fn pair(a: [n], b: [n]) -> [n] = a + b
fn f(x: [k], y: [m]) -> [?t] = pair(x as [?s], y as [?s])
"""
    assert codes(src) == ["E0401"]
    assert "two unknowns both written `?s`" in messages(src)


def test_a_variable_the_loop_does_not_change_keeps_its_unknown():
    """`pos` isn't assigned in the loop, so it keeps the old `?s`; `out`'s is new."""
    src = """
fn pair(a: [b n], c: [b n]) -> [b n] = a + c
fn f(x: [b n], steps: int) -> [b ?t]:
    out: [b ?s] = x
    pos: [b ?s] = x
    for i in 0..steps:
        y = pair(out, pos)
        out = concat((out, x), over=s)
    return out
"""
    assert codes(src) == ["E0401"]


def test_after_the_loop_the_unknown_is_new():
    """A copy made before the loop no longer shares the grown variable's size."""
    src = """
fn f(x: [b n], steps: int) -> [b ?t]:
    out: [b ?s] = x
    first = out
    for i in 0..steps:
        out = concat((out, x), over=s)
    return concat((first, out), over=b)
"""
    assert codes(src) == ["E0401"]


def test_a_branch_may_grow_it():
    src = """
fn f(x: [b n], steps: int) -> [b ?t]:
    out: [b ?s] = x
    for i in 0..steps:
        if i % 2 == 0:
            out = concat((out, x), over=s)
    return out
"""
    assert codes(src) == []


def test_messages_show_unknowns_as_written():
    src = """
fn f(x: [b n], steps: int) -> [b ?t] f64:
    out: [b ?s] = x
    for i in 0..steps:
        out = concat((out, x), over=s) to f64
    return out to f64
"""
    text = messages(src)
    assert "`[b ?s] f32`" in text and "#" not in text
