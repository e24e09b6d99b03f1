"""Packaging: one version, the metadata every package carries, and (slow) the built
distributions: ``uv build --all-packages`` and ``twine check`` clean, sdists holding only
sources, a light install of shapescript-core and shapescript-cli from the built wheels
(no torch) that checks a folder and says what `run` needs, and the pre-commit hook run by
``pre-commit try-repo`` on a sample repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import shapescript

ROOT = Path(__file__).resolve().parents[1]
MEMBERS = sorted((ROOT / "packages").glob("*/pyproject.toml"))
PROJECTS = [ROOT / "pyproject.toml", *MEMBERS]
OURS = {"shapescript", *(p.parent.name for p in MEMBERS)}
PIN = re.compile(r"^(shapescript(?:-[a-z]+)?)(\[[a-z,]+\])?==(.+)$")
GOOD = "fn f(x: [n]) -> [n] = x\n"
BAD = "fn f(x: [n]) -> [n] = y\n"


def _load(path: Path) -> dict:
    return tomllib.loads(path.read_text())


def _requirements(project: dict) -> list[str]:
    reqs = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        reqs += extra
    return reqs


# ---------------------------------------------------------------------------
# The metadata (fast)


def test_one_version_every_pin_agrees():
    version = shapescript.__version__
    for path in PROJECTS:
        data = _load(path)
        project = data["project"]
        assert "version" not in project and project["dynamic"] == ["version"], path
        source = data["tool"]["hatch"]["version"]["path"]
        assert (path.parent / source).resolve() == \
            ROOT / "packages/shapescript-core/src/shapescript/__init__.py", path
        for req in _requirements(project):
            m = PIN.match(req.replace(" ", ""))
            if m and m.group(1) in OURS:
                assert m.group(3) == version, f"{path}: {req} is not =={version}"


def test_other_version_literals_agree():
    # Modules that spell the version out must agree with the one source.
    for module in ROOT.glob("packages/*/src/*/__init__.py"):
        m = re.search(r'^__version__ = "([^"]+)"', module.read_text(), re.M)
        if m:
            assert m.group(1) == shapescript.__version__, module
    from shapescript import compiler

    assert compiler.__version__ == shapescript.__version__


@pytest.mark.parametrize("path", PROJECTS, ids=lambda p: p.parent.name)
def test_every_package_has_readme_licence_classifiers_urls(path):
    project = _load(path)["project"]
    assert (path.parent / project["readme"]).is_file()
    assert project["license"] == "MIT"
    for licence in project["license-files"]:
        assert (path.parent / licence).read_text() == (ROOT / "LICENSE").read_text()
    assert "Typing :: Typed" in project["classifiers"]
    assert {"Homepage", "Repository", "Documentation", "Issues"} <= set(project["urls"])
    assert project["description"] and project["requires-python"]


@pytest.mark.parametrize("path", MEMBERS, ids=lambda p: p.parent.name)
def test_every_import_package_is_typed(path):
    wheel = _load(path)["tool"]["hatch"]["build"]["targets"]["wheel"]
    for package in wheel["packages"]:
        assert (path.parent / package / "py.typed").is_file(), package


def test_core_runs_without_torch_and_the_runtime_is_an_extra():
    core = _load(ROOT / "packages/shapescript-core/pyproject.toml")["project"]
    names = {re.split(r"[<>=\[ ]", r)[0] for r in core["dependencies"]}
    assert names == {"lark"}
    runtime = {re.split(r"[<>=\[ ]", r)[0] for r in core["optional-dependencies"]["runtime"]}
    assert runtime == {"torch", "einops", "safetensors", "numpy"}
    cli = _load(ROOT / "packages/shapescript-cli/pyproject.toml")["project"]
    assert not any(r.startswith(("torch", "numpy")) for r in cli["dependencies"])
    # Development gets the runtime by default, so `uv run` runs programs.
    dev = _load(ROOT / "pyproject.toml")["dependency-groups"]["dev"]
    assert "shapescript-core[runtime]" in dev


def _group(name: str) -> set[str]:
    """The requirements of a dependency group of the workspace, its included groups' too."""
    groups = _load(ROOT / "pyproject.toml")["dependency-groups"]
    out: set[str] = set()
    for req in groups[name]:
        out |= _group(req["include-group"]) if isinstance(req, dict) else {req}
    return out


def _names(reqs: set[str]) -> set[str]:
    return {re.split(r"[<>=\[ ;]", r)[0].lower() for r in reqs}


HEAVY = {"transformers", "llama-cpp-python", "gguf", "tokenizers", "mkdocs", "mkdocs-material",
         "mkdocstrings", "pytest-lsp", "nbclient", "ipykernel", "shapescript-hf",
         "shapescript-gguf", "matplotlib", "pytest"}


def test_the_first_run_pulls_only_what_training_needs():
    # `uv run` (the README's first command) installs the default groups: the runtime only.
    default = _load(ROOT / "pyproject.toml")["tool"]["uv"]["default-groups"]
    pulled = set().union(*(_group(g) for g in default))
    assert pulled == {"shapescript-core[runtime]"}, pulled
    # The heavy ones are the test suite's, which its command installs.
    assert HEAVY <= _names(_group("test")), HEAVY - _names(_group("test"))


def test_the_readme_test_command_installs_the_test_group_and_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = re.search(r"```sh\n(.*?)```", readme, re.S)
    assert first is not None
    lines = [ln.split("#")[0].strip() for ln in first.group(1).splitlines()]
    (command,) = [ln for ln in lines if "pytest" in ln]
    assert command == "uv run --group test pytest"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(rf"^{re.escape(command)}$", ci, re.M), ci
    # So are the import contracts: in the same environment.
    assert re.search(r"^uv run --group test lint-imports$", ci, re.M), ci


def test_pre_commit_hook_definition():
    import yaml

    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "shapescript-check"
    assert hook["entry"].startswith("shapescript check")
    assert hook["language"] == "python"
    assert re.search(hook["files"], "models/a.ss") and not re.search(hook["files"], "a.py")


# ---------------------------------------------------------------------------
# The built distributions (slow)


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    if shutil.which("uv") is None:
        pytest.skip("uv is not installed")
    out = tmp_path_factory.mktemp("dist")
    r = subprocess.run(["uv", "build", "--all-packages", "-o", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.slow
def test_build_and_twine_check(dist):
    files = sorted(p.name for p in dist.iterdir() if p.suffix in (".whl", ".gz"))
    assert len(files) == 2 * len(PROJECTS), files
    r = subprocess.run([sys.executable, "-m", "twine", "check", "--strict",
                        *[str(dist / f) for f in files]],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow
def test_sdists_hold_only_sources(dist):
    allowed_top = {"src", "README.md", "LICENSE", "pyproject.toml", "PKG-INFO", ".gitignore"}
    for sdist in dist.glob("*.tar.gz"):
        with tarfile.open(sdist) as tar:
            names = [n.split("/", 1)[1] for n in tar.getnames() if "/" in n]
        tops = {n.split("/")[0] for n in names if n}
        assert tops <= allowed_top, (sdist.name, tops - allowed_top)
        assert not any("__pycache__" in n or n.endswith(".pyc") for n in names), sdist.name
        if sdist.name.startswith("shapescript-"):  # the meta-package: metadata only
            assert "src" not in tops and not any(n.startswith(("tests", ".ci", "benchmarks"))
                                                 for n in names)


@pytest.mark.slow
def test_wheels_carry_the_data_and_py_typed(dist):
    [core] = dist.glob("shapescript_core-*.whl")
    names = zipfile.ZipFile(core).namelist()
    assert "shapescript/py.typed" in names
    assert "shapescript/explanations/E0413.md" in names
    assert any(n.startswith("shapescript/prelude/") and n.endswith(".ss") for n in names)
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(core).read(meta).decode()
    assert "Requires-Dist: torch" in text and "extra == 'runtime'" in text
    assert re.search(r"^Requires-Dist: lark", text, re.M)


def _fresh_venv(tmp_path: Path) -> Path:
    venv = tmp_path / "venv"
    r = subprocess.run(["uv", "venv", "--python", sys.executable, str(venv)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return venv


@pytest.mark.slow
def test_light_install_checks_a_folder_and_hints_at_the_runtime(dist, tmp_path):
    venv = _fresh_venv(tmp_path)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("VIRTUAL_ENV", "UV_PROJECT", "PYTHONPATH"))}
    r = subprocess.run(["uv", "pip", "install", "--python", str(venv / "bin" / "python"),
                        "--find-links", str(dist), "shapescript-core", "shapescript-cli"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    py, exe = venv / "bin" / "python", venv / "bin" / "shapescript"
    # Installed from the wheels, not the workspace; and without torch.
    r = subprocess.run([str(py), "-c", "import shapescript, importlib.util as u; "
                        "print(shapescript.__file__); print(u.find_spec('torch'))"],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert str(venv) in r.stdout.splitlines()[0] and r.stdout.splitlines()[1] == "None"

    project = tmp_path / "project"
    (project / "models").mkdir(parents=True)
    (project / "models" / "good.ss").write_text(GOOD)
    (project / "models" / "bad.ss").write_text(BAD)
    clean_env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "NO_COLOR": "1"}

    def sh(*args: str):
        return subprocess.run([str(exe), *args], cwd=project, env=clean_env,
                              capture_output=True, text=True, timeout=300)

    r = sh("check", "--format", "concise", ".")
    assert r.returncode == 1, r.stderr
    assert r.stdout == "models/bad.ss:1:23: error[E0201]: unknown name `y`\n"
    assert r.stderr == "Found 1 error in 1 file (2 checked).\n"  # no torch/NumPy warning
    r = sh("build", "models/good.ss", "-o", "good.py")
    assert r.returncode == 0, r.stderr
    assert "def f(" in (project / "good.py").read_text()
    r = sh("explain", "E0201")
    assert r.returncode == 0 and r.stdout.startswith("E0201")
    r = sh("run", "models/good.ss")
    assert r.returncode == 2
    assert r.stderr == ("error: shapescript run needs torch: "
                        "pip install 'shapescript-core[runtime]'\n")


@pytest.mark.slow
def test_pre_commit_hook_by_try_repo(dist, tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    pre_commit = Path(sys.executable).parent / "pre-commit"
    if not pre_commit.exists():
        pytest.skip("pre-commit is not installed")
    sample = tmp_path / "sample"
    (sample / "models").mkdir(parents=True)
    (sample / "models" / "good.ss").write_text(GOOD)
    (sample / "models" / "bad.ss").write_text(BAD)
    (sample / "notes.txt").write_text("not a program\n")
    git_env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for cmd in (["git", "init", "-q"], ["git", "add", "."],
                ["git", "commit", "-q", "-m", "sample"]):
        subprocess.run(cmd, cwd=sample, env=git_env, check=True, timeout=60)
    # The hook installs this repository's root package; its members come from the
    # built wheels (they aren't on the registry), the rest from the registry.
    links = " ".join(x for x in (str(dist), os.environ.get("PIP_FIND_LINKS", "")) if x)
    env = {**git_env, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "PIP_FIND_LINKS": links,
           "NO_COLOR": "1"}
    env.pop("VIRTUAL_ENV", None)
    r = subprocess.run([str(pre_commit), "try-repo", str(ROOT), "shapescript-check",
                        "--all-files", "--verbose"], cwd=sample, env=env,
                       capture_output=True, text=True, timeout=900)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "shapescript check" in out and "Failed" in out
    assert "models/bad.ss:1:23: error[E0201]: unknown name `y`" in out
    assert "good.ss" not in out.split("Failed", 1)[1]
    r = subprocess.run([str(pre_commit), "try-repo", str(ROOT), "shapescript-check",
                        "--files", "models/good.ss", "notes.txt"], cwd=sample, env=env,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Passed" in r.stdout


# ---------------------------------------------------------------------------
# Without the runtime (fast: the missing modules are simulated)


def _cli(*args: str):
    from click.testing import CliRunner

    from shapescript_cli.main import main

    return CliRunner().invoke(main, list(args), prog_name="shapescript")


def test_run_without_torch_says_what_to_install(monkeypatch, tmp_path):
    from shapescript_cli import main as cli_main

    real = cli_main._module_exists
    monkeypatch.setattr(cli_main, "_module_exists",
                        lambda m: m not in ("torch", "numpy") and real(m))
    (tmp_path / "a.ss").write_text(GOOD)
    r = _cli("run", str(tmp_path / "a.ss"))
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == "error: shapescript run needs torch: pip install 'shapescript-core[runtime]'\n"
    # check needs nothing of the runtime
    assert _cli("check", str(tmp_path / "a.ss")).exit_code == 0


def test_a_runtime_import_failing_in_a_command_is_the_hint_not_a_crash(monkeypatch):
    import click

    from shapescript_cli.main import main

    @click.command("needs-torch")
    def needs_torch() -> None:
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    @click.command("needs-other")
    def needs_other() -> None:
        raise ModuleNotFoundError("No module named 'leftpad'", name="leftpad")

    monkeypatch.setitem(main.commands, "needs-torch", needs_torch)
    monkeypatch.setitem(main.commands, "needs-other", needs_other)
    r = _cli("needs-torch")
    assert r.exit_code == 2
    assert r.stderr == ("error: shapescript needs-torch needs torch: "
                        "pip install 'shapescript-core[runtime]'\n")
    r = _cli("needs-other")  # not the runtime: a bug, reported as one
    assert r.exit_code == 3 and "internal error" in r.stderr
