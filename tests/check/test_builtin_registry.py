"""The registry of built-ins: one entry per built-in, and every phase agrees with it.

This is the recipe "How to add a built-in" (docs/architecture.md) as a test: each entry
of ``shapescript.builtin_registry`` carries its description and has a type rule and an
emitter (a reduction its dtype and domain rules), and the phases' name sets are the
registry's. ``cumprod`` is the worked example of a built-in written out, tested here
against torch; a median, the page's example of a new member of a family, is added to a
copy of the package by its entry alone and checked, built and run against torch.
"""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from shapescript.builtin_registry import (
    ARITH_OPS, BUILT_IN_GROUPS, BUILTINS, BUILTINS_BY_NAME, CONSTRUCTOR_NAMES, ELEMENTWISE_OPS,
    FUNCTION_NAMES, HOST_ONLY_NAMES, KEEPDIM_NAMES, Builtin, BuiltinDoc, builtin_doc,
    builtin_docs, family,
)
from shapescript.compiler import check_program, check_source, compile_source

NAMES = [b.name for b in BUILTINS]


def test_the_registry_has_one_entry_per_name():
    assert len(NAMES) == len(set(NAMES))
    assert FUNCTION_NAMES | CONSTRUCTOR_NAMES == set(NAMES)
    assert not FUNCTION_NAMES & CONSTRUCTOR_NAMES


def _rules_and_emitters() -> tuple[dict, dict]:
    import shapescript.check.body  # noqa: F401  (registers every rule)
    from shapescript.check.builtins import RULES
    from shapescript.codegen.builtins import EMITTERS

    return RULES, EMITTERS


def what_is_missing(entry: Builtin, rules: dict, emitters: dict) -> list[str]:
    """What the recipe asks of ``entry`` that it lacks: a rule, an emitter, each part of
    its description, parameters that agree with its signature's."""
    name = entry.name
    out = []
    if name not in rules:
        out.append(f"`{name}` has no type rule (check/)")
    if name not in emitters:
        out.append(f"`{name}` has no emitter (codegen/)")
    if entry.family in ("reduction", "scan"):
        # Read by the family's rule (check/dtypes.py, check/domains.py) and emitter.
        for part in ("dtype_rule", "domain_rule", "torch"):
            if not getattr(entry, part):
                out.append(f"`{name}` has no {part.replace('_', ' ')} (builtin_registry)")
        if entry.torch_pair and not entry.one_axis:
            out.append(f"`{name}`'s torch call takes one axis: it needs `one_axis` "
                       "(builtin_registry)")
    if entry.family == "elementwise" and not entry.torch:
        out.append(f"`{name}` has no torch (builtin_registry)")
    for part in ("call", "signature", "doc", "group"):
        text = getattr(entry, part)
        if not text.strip() or "\n" in text:
            out.append(f"`{name}` has no one-line description {part} (builtin_registry)")
    if entry.signature and not entry.signature.startswith(name + ("[" if entry.form ==
                                                                   "constructor" else "(")):
        out.append(f"`{name}`'s signature is not of `{name}`: {entry.signature}")
    if entry.form == "call" and not entry.variadic:
        # The description's parameters are the registry's, in order.
        doc = BuiltinDoc(entry)
        written = [p.split(":")[0].split("=")[0].strip().rstrip("…") for p in doc.params]
        if written != list(entry.params + entry.keywords):
            out.append(f"`{name}`'s signature names {written}: {entry.signature}")
    return out


@pytest.mark.parametrize("name", NAMES)
def test_every_built_in_has_a_rule_an_emitter_and_a_description(name):
    rules, emitters = _rules_and_emitters()
    assert what_is_missing(BUILTINS_BY_NAME[name], rules, emitters) == []


@pytest.mark.parametrize("change, missing", [
    ({"doc": ""}, "no one-line description doc"),
    ({"call": " "}, "no one-line description call"),
    ({"group": ""}, "no one-line description group"),
    ({"doc": "two\nlines"}, "no one-line description doc"),
    ({"signature": "cumprod(x: [... A] Num) -> [... A] Num"}, "signature names ['x']"),
    ({"signature": "cumsum(x: [... A] Num, over: Axis[A]) -> [... A] Num"}, "is not of"),
])
def test_an_entry_lacking_part_of_its_description_fails(change, missing):
    rules, emitters = _rules_and_emitters()
    broken = replace(BUILTINS_BY_NAME["cumprod"], **change)
    assert any(missing in m for m in what_is_missing(broken, rules, emitters))


def test_an_entry_without_a_rule_or_an_emitter_fails():
    rules, emitters = _rules_and_emitters()
    entry = BUILTINS_BY_NAME["cumprod"]
    assert what_is_missing(entry, {}, emitters) == ["`cumprod` has no type rule (check/)"]
    assert what_is_missing(entry, rules, {}) == ["`cumprod` has no emitter (codegen/)"]


@pytest.mark.parametrize("name, change, missing", [
    ("sum", {"dtype_rule": None}, "`sum` has no dtype rule"),
    ("sum", {"domain_rule": None}, "`sum` has no domain rule"),
    ("sum", {"torch": ""}, "`sum` has no torch"),
    ("cumprod", {"dtype_rule": None}, "`cumprod` has no dtype rule"),
    ("max", {"torch_pair": True}, "needs `one_axis`"),
    ("add", {"torch": ""}, "`add` has no torch"),
])
def test_a_family_member_lacking_what_its_rule_or_emitter_reads_fails(name, change, missing):
    rules, emitters = _rules_and_emitters()
    broken = replace(BUILTINS_BY_NAME[name], **change)
    assert any(missing in m for m in what_is_missing(broken, rules, emitters))


@pytest.mark.parametrize("fam", ["elementwise", "reduction", "scan", "pattern", "constructor"])
def test_a_family_shares_one_rule_and_one_emitter(fam):
    rules, emitters = _rules_and_emitters()
    names = family(fam)
    assert names
    assert len({rules[n] for n in names}) == 1
    assert len({emitters[n] for n in names}) == 1


def test_the_descriptions_are_the_registry_entries():
    assert [d.name for d in builtin_docs()] == NAMES
    assert all(builtin_doc(b.name).entry is b for b in BUILTINS)
    assert builtin_doc("softmax") is None  # a prelude function describes itself


def test_each_group_of_the_page_is_one_run_of_the_table():
    # The page shows the groups in the table's order, each once; an entry written away
    # from its group's run would move on the page.
    runs = [b.group for i, b in enumerate(BUILTINS) if i == 0 or BUILTINS[i - 1].group != b.group]
    assert runs == [group for group, _ in BUILT_IN_GROUPS]
    assert [d.entry for _, docs in BUILT_IN_GROUPS for d in docs] == list(BUILTINS)


def test_rules_and_emitters_are_for_registered_built_ins_only():
    rules, emitters = _rules_and_emitters()
    assert set(rules) == set(NAMES)
    assert set(emitters) == set(NAMES)


def test_the_name_sets_of_the_lexer_and_the_checker_come_from_the_registry():
    from shapescript.check import env
    from shapescript.syntax import lexer

    assert lexer.CONSTRUCTORS == CONSTRUCTOR_NAMES
    assert env.BUILTIN_FUNCS == FUNCTION_NAMES
    assert env.CONSTRUCTORS == CONSTRUCTOR_NAMES


def test_the_families_name_sets_come_from_the_registry():
    from shapescript.check import patterns
    from shapescript.codegen import keepdim

    einops_ops = tuple(b.name for b in BUILTINS if b.einops)
    assert patterns.REDUCE_OPS == einops_ops == ("sum", "mean", "max", "min", "prod", "any", "all")
    assert keepdim._ARITH == ARITH_OPS == {"+": "add", "-": "sub", "*": "mul", "/": "div"}
    assert set(ELEMENTWISE_OPS) == {"add", "sub", "mul", "div", "maximum", "minimum"}
    assert KEEPDIM_NAMES == {"sum", "mean", "max", "min", "prod", "var", "std", "logsumexp"}


def test_a_host_only_built_in_is_an_export_error():
    for name in sorted(HOST_ONLY_NAMES):
        assert BUILTINS_BY_NAME[name].form == "call"
    src = "export fn f(x: [n]) -> [n]:\n    print(x)\n    return x\n"
    assert [d.code for d in check_source(src, "t.ss")] == ["E1704"]


# -- cumprod, the worked example ---------------------------------------------------------

def _ret(src: str) -> str:
    program = check_program(src, "t.ss")
    assert program.ok, [d.message for d in program.diagnostics]
    fn = next(iter(program.main.fns.values()))
    return str(program.main.type_of(fn.sig.decl.body))


@pytest.mark.parametrize("arg, result", [
    ("[b T] Pos", "[b T] f32 Pos"),
    ("[b T] NonNeg", "[b T] f32 NonNeg"),
    ("[b T] Unit", "[b T] f32 Unit"),
    ("[b T] Signed", "[b T] f32 Signed"),
    ("[b T] Prob over T", "[b T] f32 Unit"),
    ("[b T]", "[b T] f32"),
    ("[b T] i32", "[b T] i64"),
    ("[b T] bool", "[b T] i64"),
    ("[b T] f16 Pos", "[b T] f16 Pos"),
])
def test_cumprod_keeps_the_axes_with_a_products_dtype_and_domain(arg, result):
    assert _ret(f"dim T = 5\nfn f(x: {arg}) = cumprod(x, over=T)\n") == result


def test_cumprod_reaches_an_axis_by_label():
    assert _ret("fn f(x: [b n]) = cumprod(x, over=b)\n") == "[b n] f32"


@pytest.mark.parametrize("call, code", [
    ("cumprod(x, over=k)", "E0403"),      # no such axis
    ("cumprod(x)", "E0501"),              # `over=` is required
    ("cumprod(x, over=(b n))", "E0403"),  # one axis
    ("cumprod(x, axis=b)", "E0502"),      # unknown keyword
    ("cumprod(x, x, over=b)", "E0501"),   # one operand
])
def test_cumprod_errors(call, code):
    assert [d.code for d in check_source(f"fn f(x: [b n]) -> [b n] = {call}\n", "t.ss")] == [code]


def test_cumprod_is_reserved():
    src = "fn cumprod(x: [n]) -> [n] = x\n"
    assert [d.code for d in check_source(src, "t.ss")] == ["E0203"]


def test_cumprod_runs_as_torch_cumprod():
    torch = pytest.importorskip("torch")
    src = ("dim T = 5\n"
           "fn surv(p: [b T] Unit) -> [b T] Unit = cumprod(p, over=T)\n"
           "fn down(x: [b T] i32) -> [b T] i64 = cumprod(x, over=b)\n")
    out = compile_source(src, "t.ss")
    assert out.python is not None, out.diagnostics
    ns: dict = {}
    exec(compile(out.python, "t.ss", "exec"), ns)
    p = torch.rand(3, 5)
    assert torch.equal(ns["surv"](p), torch.cumprod(p, dim=1))
    x = torch.randint(-3, 4, (3, 5), dtype=torch.int32)
    got = ns["down"](x)
    assert got.dtype == torch.int64 and torch.equal(got, torch.cumprod(x, dim=0))


def test_the_recipe_in_the_architecture_page_names_files_that_exist():
    """docs/architecture.md's "How to add a built-in" is the recipe this file checks:
    every file it names is where it says."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## How to add a built-in", 1)[1].split("\n## ", 1)[0]
    core = root / "packages" / "shapescript-core" / "src" / "shapescript"
    named = set(re.findall(r"`((?:check|codegen)/\w+\.py|\w+\.py)`", section))
    assert {"builtin_registry.py", "check/builtins.py", "codegen/builtins.py"} <= named
    for path in named:
        if path.startswith("test_"):
            continue
        assert (core / path).is_file(), path
    assert "tests/check/test_builtin_registry.py" in section
    # Its entry for the worked example is the registry's, description and all.
    code, _median = re.findall(r"```python\n(.*?)```", section, re.S)
    written = eval(code.strip().rstrip(","), {"Builtin": Builtin})  # noqa: S307 (our page)
    entry = BUILTINS_BY_NAME["cumprod"]
    assert replace(written, group=entry.group) == entry


# -- a median, added by its entry alone ----------------------------------------------------

MEDIAN_PROGRAM = """\
dim D = 5
fn mid(x: [b n D] Pos) -> [b n] Pos = median(x, over=D)
fn centred(x: [b n D]) -> [b n D] = x - median(x, over=D)
fn every(x: [n D] i32) -> [] i32 = median(x)
fn pick(i: [b n] Index[D]) -> [b] Index[D] = median(i, over=n)
"""

MEDIAN_RUN = """\
import sys
import torch
import shapescript
from shapescript.builtin_registry import BUILTINS_BY_NAME, builtin_doc
from shapescript.compiler import check_source, compile_source

assert shapescript.__file__.startswith(sys.argv[1]), shapescript.__file__
assert builtin_doc("median").group.startswith("Reductions")
out = compile_source(sys.argv[2], "t.ss")
assert out.python is not None, [d.message for d in out.diagnostics]
# Broadcast back, the median is kept with keepdim=True, its values taken.
assert "median(dim=2, keepdim=True).values" in out.python, out.python
ns = {}
exec(compile(out.python, "t.ss", "exec"), ns)
x = torch.rand(3, 4, 5) + 0.1
assert torch.equal(ns["mid"](x), torch.median(x, dim=2).values)
assert torch.equal(ns["centred"](x), x - torch.median(x, dim=2, keepdim=True).values)
n = torch.randint(-9, 9, (4, 5), dtype=torch.int32)
got = ns["every"](n)
assert got.dtype == torch.int32 and torch.equal(got, torch.median(n))
i = torch.randint(0, 5, (3, 4))
assert torch.equal(ns["pick"](i), torch.median(i, dim=1).values)
for src, code in [
    ("fn f(x: [b n]) -> [] = median(x, over=(b n))\\n", "E0403"),   # one axis
    ("fn f(m: [b n] bool) -> [b] bool = median(m, over=n)\\n", "E0404"),  # no masks
    ("fn f(p: [b C] Prob over C) -> [C] = median(p, over=b)\\n", "E0704"),  # class axis
    ("fn median(x: [n]) -> [n] = x\\n", "E0203"),   # reserved
]:
    assert [d.code for d in check_source(src, "t.ss")] == [code], src
print("median: checked, built and run")
"""


def test_a_reduction_is_added_by_its_entry_alone(tmp_path):
    """The page's median entry, put after ``min`` in a copy of the package, and nothing
    else: the copy checks, builds and runs it as torch does. A change that made a new
    member of a family need a second place (a name set, a dtype or domain table, the
    emitter's torch names) fails here."""
    import re
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import shapescript

    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("## How to add a built-in", 1)[1].split("\n## ", 1)[0]
    _cumprod, entry = re.findall(r"```python\n(.*?)```", section, re.S)
    assert entry.lstrip().startswith('_reduction("median"')
    copy = tmp_path / "shapescript"
    shutil.copytree(Path(shapescript.__file__).parent, copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    registry = copy / "builtin_registry.py"
    text = registry.read_text(encoding="utf-8")
    after = '        _reduction("prod", '
    assert text.count(after) == 1
    indented = "".join("        " + line + "\n" for line in entry.strip().splitlines())
    registry.write_text(text.replace(after, indented + after), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", MEDIAN_RUN, str(copy), MEDIAN_PROGRAM],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "median: checked, built and run" in run.stdout


def test_median_is_not_part_of_the_language():
    # The test above adds it to a copy only.
    assert "median" not in BUILTINS_BY_NAME
    assert [d.code for d in check_source("fn f(x: [n]) -> [] = median(x)\n", "t.ss")] != []
