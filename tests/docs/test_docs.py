"""The documentation is tested: the site builds with ``mkdocs build --strict``, every
ShapeScript block in ``docs/`` checks as it says, the tutorial's commands run and print
what it shows, the generated reference covers every built-in, and nothing cites a document
that isn't in the repository.

A ```` ```ss ```` block must check clean; ```` ```ss {expect=E0401} ```` must produce exactly
that code (several: ``{expect=E0401,E0413}``); ```` ```ss {.fragment} ```` is part of a
larger program and must only parse. The markers are in braces, the form the site's
Markdown (pymdownx.superfences with attr_list) reads as attributes of a code block: a bare
word after ``ss`` would stop the block from being a code block at all.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SHAPESCRIPT = [sys.executable, "-m", "shapescript_cli"]
_BLOCK = re.compile(r"^```ss([^\n]*)\n(.*?)^```", re.M | re.S)


def ss_blocks() -> list[tuple[str, str, str]]:
    """(where, info string, code) for each ShapeScript block of the docs."""
    out = []
    for md in sorted(DOCS.rglob("*.md")):
        text = md.read_text(encoding="utf-8")
        for m in _BLOCK.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append((f"{md.relative_to(ROOT)}:{line}", m.group(1).strip(), m.group(2)))
    return out


def check_codes(code: str, tmp_path: Path) -> list[str]:
    path = tmp_path / "block.ss"
    path.write_text(code, encoding="utf-8")
    r = subprocess.run([*SHAPESCRIPT, "check", "--format", "json", str(path)],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    return sorted({d["code"] for d in json.loads(r.stdout or "[]")})


BLOCKS = ss_blocks()


def test_the_docs_have_shapescript_blocks():
    assert len(BLOCKS) >= 20
    assert any("expect=" in info for _, info, _ in BLOCKS)


@pytest.mark.parametrize("where,info,code", BLOCKS, ids=[b[0] for b in BLOCKS])
def test_shapescript_block_checks_as_marked(where, info, code, tmp_path):
    assert info == "" or re.fullmatch(r"\{[^{}]*\}", info), f"{where}: write `ss {{{info}}}`"
    codes = check_codes(code, tmp_path)
    m = re.search(r"expect=([\w,]+)", info)
    if m:
        assert codes == sorted(m.group(1).split(",")), f"{where}: {codes}"
    elif "fragment" in info:
        assert not [c for c in codes if c.startswith("E01")], f"{where}: {codes}"
    else:
        assert codes == [], f"{where}: {codes}"


def test_an_expect_marker_fails_on_the_wrong_code(tmp_path):
    # The marker is compared, not merely present: a clean program has no E0401.
    assert check_codes("dim D = 4\nfn f(x: [D]) -> [D] = x\n", tmp_path) == []


# --- the tutorial ------------------------------------------------------------------------

def _shown_output(after: str) -> str:
    """The ```text block that follows a command in tutorial.md."""
    text = (DOCS / "tutorial.md").read_text(encoding="utf-8")
    i = text.index(after)
    m = re.compile(r"```text\n(.*?)```", re.S).search(text, i)
    assert m is not None
    return m.group(1)


_SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.M | re.S)
# Where the tutorial works; the test puts it under its own temporary folder.
_WORKDIR = "/tmp/first-hour"


def tutorial_commands() -> list[str]:
    """The commands of tutorial.md's ```sh blocks, in the page's order."""
    text = (DOCS / "tutorial.md").read_text(encoding="utf-8")
    return [line.strip() for m in _SH_BLOCK.finditer(text)
            for line in m.group(1).splitlines() if line.strip()]


def _shell(command: str, cwd: Path, state: Path) -> tuple[subprocess.CompletedProcess, Path]:
    """Runs one command line in bash as a reader would type it (with this environment's
    `shapescript` and `python` first on the PATH); returns it and the folder it ends in."""
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1",
           "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    script = f'{command}\nrc=$?\npwd > "{state}"\nexit $rc\n'
    r = subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True,
                       env=env, timeout=600)
    return r, Path(state.read_text().strip())


@pytest.mark.slow
def test_the_tutorial_runs_from_an_empty_folder(tmp_path):
    # The files the page shows are the files it ships.
    page = (DOCS / "tutorial.md").read_text(encoding="utf-8")
    for name in ("norm.ss", "broken.ss", "probe.ss"):
        assert (DOCS / "tutorial" / name).read_text(encoding="utf-8") in page, name
    for name in ("use_norm.py", "serve_probe.py"):
        # The page shows each script without its docstring.
        text = (DOCS / "tutorial" / name).read_text(encoding="utf-8")
        body = text[text.index('"""', 3) + 3:].lstrip("\n")
        assert body in page, name

    work = tmp_path / "first-hour"          # doesn't exist yet: the page makes it
    commands = tutorial_commands()
    installs = [c for c in commands if c.startswith("pip install")]
    # This environment is installed already: the install line is the one not run.
    assert installs == ["pip install 'shapescript[runtime,export]'"], installs
    cwd = ROOT                               # the page starts in a clone
    ran: dict[str, subprocess.CompletedProcess] = {}
    for command in commands:
        if command in installs:
            continue
        r, cwd = _shell(command.replace(_WORKDIR, str(work)), cwd, tmp_path / "cwd")
        ran[command] = r
        expect = 1 if command == "shapescript check broken.ss" else 0
        assert r.returncode == expect, f"{command}\n{r.stdout}{r.stderr}"
    assert cwd == work
    assert sorted(p.name for p in work.glob("*.ss")) == ["broken.ss", "norm.ss", "probe.ss"]

    import shapescript

    assert shapescript.__version__ in ran["shapescript --version"].stdout
    assert ran["shapescript check norm.ss"].stdout == ""
    assert ran["shapescript check broken.ss"].stdout.strip() == \
        _shown_output("shapescript check broken.ss").strip()
    assert ran["python use_norm.py"].stdout == _shown_output("python use_norm.py")

    # One report per pass, with the losses the page shows (seeded, so the same here).
    r = ran["shapescript run probe.ss"]
    loss = re.compile(r"loss[ =:]+([\d.]+)")
    losses = [float(x) for x in loss.findall(r.stdout + r.stderr)]
    shown = [float(x) for x in loss.findall(_shown_output("shapescript run probe.ss"))]
    assert len(losses) == len(shown) == 5, r.stdout + r.stderr
    assert all(abs(a - b) < 2e-3 for a, b in zip(losses, shown)), (losses, shown)
    assert losses[-1] < losses[0]
    assert (work / "probe.safetensors").exists()

    r = ran["shapescript export probe.ss -o probe.pt2"]
    assert (work / "probe.pt2").exists()
    assert re.search(r"^wrote probe\.pt2 \(", r.stdout + r.stderr, re.M), r.stdout + r.stderr
    assert ran["python serve_probe.py"].stdout == _shown_output("python serve_probe.py")


def test_the_tutorial_starts_from_a_folder_it_makes():
    # Every `cp` or `cd` into the work folder comes after a `mkdir -p` of it.
    commands = tutorial_commands()
    uses = [i for i, c in enumerate(commands) if f" {_WORKDIR}" in c]
    assert uses, commands
    first = commands[uses[0]]
    assert first.startswith(f"mkdir -p {_WORKDIR} && "), first


# --- the generated reference and the site --------------------------------------------------

def _reference():
    # Loaded from its file under a name of its own: a plain `reference` would shadow
    # the spotter example's module of that name for the rest of the session.
    import importlib.util

    spec = importlib.util.spec_from_file_location("_ss_docs_reference_pages",
                                                  DOCS / "gen" / "ss_reference_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_builtins_page_covers_every_built_in_the_checker_knows():
    from shapescript.check.env import BUILTIN_FUNCS, CONSTRUCTORS

    ref = _reference()
    assert ref.built_in_names() == BUILTIN_FUNCS | CONSTRUCTORS
    page = ref.builtins_page()
    for name in ("softmax", "gelu", "linear", "scaled_dot_product_attention", "rearrange"):
        assert f"`{name}`" in page


def test_the_error_index_has_every_code():
    from shapescript.codes import CODES

    page = _reference().errors_page()
    for code in CODES:
        assert f"\n## {code}\n" in page


@pytest.mark.slow
def test_mkdocs_build_strict(tmp_path):
    pytest.importorskip("mkdocs")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                        "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                       capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "site" / "reference" / "builtins" / "index.html").exists()
    # ```ss blocks are coloured by the ShapeScript lexer (a keyword, a dim, a comment).
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert '<span class="kd">fn</span>' in home and '<span class="no">D</span>' in home
    assert '<span class="err">' not in home
    # The home page says how to install.
    assert "pip install" in home and 'href="install/"' in home


# --- no references to documents outside the repository -----------------------------------

_OUTSIDE = re.compile(r"DECISIONS|LANGUAGE §|the book|book ch|\.\./shared|book-\d|[Cc]hapters? \d|ch\. \d")


def _texts() -> list[Path]:
    paths = [ROOT / "README.md", *DOCS.rglob("*.md"), *DOCS.rglob("*.ss"), *DOCS.rglob("*.py")]
    paths += [p for p in (ROOT / "examples").rglob("*") if p.suffix in (".py", ".ss", ".md")]
    for pkg in (ROOT / "packages").glob("*/src"):
        paths += [p for p in pkg.rglob("*") if p.suffix in (".py", ".ss", ".md")]
    return paths


def test_nothing_cites_a_document_outside_the_repository():
    hits = []
    for path in _texts():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _OUTSIDE.search(line) or ("§" in line and path.name != "decisions.md"):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not hits, "\n".join(hits)
