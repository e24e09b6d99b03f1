"""Shared helpers of the golden tests: read the inline annotations of a program, check it,
render it. See README.md in this folder for the notation."""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent
PROGRAMS = sorted(GOLDEN.glob("*.ss"))

# `#~ E0401 E0402` (this line), `#~^ E0401` (the line above), `#~^^ …` (two above) …
_ANNOTATION = re.compile(r"#~(\^*)((?:[ \t]+E\d{4})+)")
_CODE = re.compile(r"E\d{4}")


def annotations(text: str) -> Counter[tuple[int, str]]:
    """The expected diagnostics of a source text: a multiset of ``(line, code)``."""
    out: Counter[tuple[int, str]] = Counter()
    for n, line in enumerate(text.splitlines(), start=1):
        for m in _ANNOTATION.finditer(line):
            target = n - len(m.group(1))
            for code in _CODE.findall(m.group(2)):
                out[(target, code)] += 1
    return out


def check(path: Path):
    """Check ``path`` (a golden program) as ``shapescript check`` does, with paths shown
    relative to this folder. Returns ``(diagnostics, sources)``."""
    from shapescript.compiler import check_program

    cwd = os.getcwd()
    os.chdir(GOLDEN)
    try:
        src = path.read_text(encoding="utf-8")
        program = check_program(src, path.name, search=[])
        diags = list(program.diagnostics)
        if src.startswith("# check --vllm") and program.ok:
            # The serving rules, as `shapescript check --vllm` adds them.
            from shapescript.api import serving_diagnostics

            diags += serving_diagnostics(program, "forward", as_errors=True)
        # Its `# noqa` comments, as `shapescript check` reads them.
        from shapescript.api import apply_suppressions

        diags = apply_suppressions(diags, program.sources, [path.name])
    finally:
        os.chdir(cwd)
    return diags, program.sources


def short(file: str) -> str:
    """A diagnostic's file, relative to this folder."""
    p = Path(file)
    if p.is_absolute():
        try:
            return str(p.relative_to(GOLDEN))
        except ValueError:
            return file
    return file


def actual(diags) -> Counter[tuple[str, int, str]]:
    return Counter((short(d.file), d.line, d.code) for d in diags)


def expected(path: Path, sources) -> Counter[tuple[str, int, str]]:
    """The annotations of ``path`` and of every golden module it imports."""
    out: Counter[tuple[str, int, str]] = Counter()
    files = {short(f) for f in sources} | {path.name}
    for name in sorted(files):
        f = GOLDEN / name
        if f.parent == GOLDEN and f.exists():
            for (line, code), k in annotations(f.read_text(encoding="utf-8")).items():
                out[(name, line, code)] += k
    return out


def rendered(diags, sources) -> str:
    """``render_full`` without colour, with this folder's absolute path removed."""
    from shapescript.render import render_full

    text = render_full(diags, sources, color=False)
    return text.replace(str(GOLDEN) + os.sep, "")


def describe(diags) -> str:
    return "\n".join(f"{short(d.file)}:{d.line}:{d.column}: {d.severity}[{d.code}]: {d.message}"
                     for d in diags)
