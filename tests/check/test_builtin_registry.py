"""The registry of built-ins: one entry per built-in, and every phase agrees with it.

This is the recipe "How to add a built-in" (docs/architecture.md) as a test: each entry
of ``shapescript.builtin_registry`` carries its description and has a type rule and an
emitter, and the lexer's and the checker's name sets are the registry's. ``cumprod`` is
the worked example: added in those places only, and tested here against torch.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from shapescript.builtin_registry import (
    BUILT_IN_GROUPS, BUILTINS, BUILTINS_BY_NAME, CONSTRUCTOR_NAMES, FUNCTION_NAMES,
    HOST_ONLY_NAMES, Builtin, BuiltinDoc, builtin_doc, builtin_docs,
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
    (code,) = re.findall(r"```python\n(.*?)```", section, re.S)
    written = eval(code.strip().rstrip(","), {"Builtin": Builtin})  # noqa: S307 (our page)
    entry = BUILTINS_BY_NAME["cumprod"]
    assert replace(written, group=entry.group) == entry
