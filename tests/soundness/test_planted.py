"""A corpus of planted shape bugs (transposed weights, wrong reduction axes, off-by-one
slices, mismatched heads, broadcasting the author didn't mean, wrong split sizes, …),
each a small program in ``planted/`` with the diagnostic it must get written on its line
as in ``tests/golden`` (``#~ E0401``), or, for the few the types can't see, ``#~ ShapeError``
and a call (``#= f(t(6, 2))``, ``t`` making zeros of a shape) that must raise it at that line.
"""

from __future__ import annotations

import collections
import re
import types
from pathlib import Path

import pytest
import torch

from shapescript import ShapeError

PLANTED = sorted((Path(__file__).parent / "planted").glob("*.ss"))
NOTE = re.compile(r"#~\s*(.*)$")


def expected(text: str) -> tuple[collections.Counter, list[str]]:
    want: collections.Counter = collections.Counter()
    for i, line in enumerate(text.splitlines(), 1):
        m = NOTE.search(line)
        if m:
            for code in m.group(1).split():
                want[(i, code)] += 1
    calls = [line[2:].strip() for line in text.splitlines() if line.startswith("#= ")]
    return want, calls


@pytest.mark.parametrize("path", PLANTED, ids=[p.stem for p in PLANTED])
def test_each_planted_bug_gets_its_diagnostic(path, tmp_path):
    from shapescript.compiler import compile_file

    text = path.read_text(encoding="utf-8")
    want, calls = expected(text)
    copy = tmp_path / path.name
    copy.write_text(text, encoding="utf-8")
    out = compile_file(str(copy))
    got = collections.Counter((d.line, d.code) for d in out.diagnostics)
    static = collections.Counter({k: v for k, v in want.items() if k[1] != "ShapeError"})
    assert got == static
    if static:
        assert out.python is None
        return
    # The types can't see this one: the program runs, and the call fails at its line.
    (line, _), = want
    mod = types.ModuleType(path.stem)
    exec(compile(out.python, str(copy), "exec"), mod.__dict__)
    namespace = dict(vars(mod), t=lambda *shape: torch.zeros(*shape))
    assert calls, "a run-time bug needs a call"
    for call in calls:
        with pytest.raises(ShapeError, match=rf"^{re.escape(path.name)}:{line}:\d+: "):
            eval(call, namespace)  # noqa: S307 - the corpus's own calls


def test_the_corpus_is_large_and_mostly_static():
    assert len(PLANTED) >= 100
    at_run_time = [p for p in PLANTED if "#~ ShapeError" in p.read_text(encoding="utf-8")]
    assert len(at_run_time) / len(PLANTED) <= 0.05
    for p in PLANTED:
        want, _ = expected(p.read_text(encoding="utf-8"))
        assert sum(want.values()) == 1, f"{p.name}: one planted bug, one diagnostic"
