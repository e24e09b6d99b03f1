"""``shapescript stubs`` and ``build --stubs``: where the stubs go, ``--check`` for CI, the
style from ``[tool.shapescript]``, and a failing command writing nothing."""

from __future__ import annotations

import os

from click.testing import CliRunner

from shapescript_cli.commands import build, stubs
from shapescript_cli.main import ShapeScriptGroup

SRC = """## Doubles each value.
fn double(x: [b n]) -> [b n] = x * 2
"""


def run(*args: str, cwd=None):
    runner = CliRunner()
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return runner.invoke(stubs.command, list(args))
    finally:
        os.chdir(old)


def test_stubs_is_a_command_of_shapescript():
    import click

    group = ShapeScriptGroup("shapescript")
    assert "stubs" in group.list_commands(click.Context(group))
    assert group.get_command(click.Context(group), "stubs") is stubs.command


def test_a_stub_goes_next_to_its_file_and_check_finds_it_current(tmp_path):
    src = tmp_path / "m.ss"
    src.write_text(SRC, encoding="utf-8")
    r = run(str(src))
    assert r.exit_code == 0, r.output
    text = (tmp_path / "m.pyi").read_text()
    assert "def double(x: Tensor[[_b, _n]]) -> Tensor[[_b, _n]]:" in text
    assert run(str(src), "--check").exit_code == 0
    # The same input gives the same bytes: running again leaves the file as it was.
    mtime = (tmp_path / "m.pyi").stat().st_mtime_ns
    assert run(str(src)).exit_code == 0
    assert (tmp_path / "m.pyi").read_text() == text
    assert (tmp_path / "m.pyi").stat().st_mtime_ns == mtime


def test_check_exits_1_for_a_stale_or_missing_stub_and_writes_nothing(tmp_path):
    src = tmp_path / "m.ss"
    src.write_text(SRC, encoding="utf-8")
    r = run(str(src), "--check")
    assert r.exit_code == 1
    assert "m.pyi: out of date (run `shapescript stubs` to rewrite it)" in r.output
    assert not (tmp_path / "m.pyi").exists()
    assert run(str(src)).exit_code == 0
    src.write_text(SRC.replace("[b n]", "[b n 4]"), encoding="utf-8")
    before = (tmp_path / "m.pyi").read_text()
    r = run(str(src), "--check")
    assert r.exit_code == 1 and "m.pyi: out of date" in r.output
    assert (tmp_path / "m.pyi").read_text() == before
    # Another style is another text: stale too.
    assert run(str(src)).exit_code == 0
    assert run(str(src), "--check", "--style", "jaxtyping").exit_code == 1


def test_output_folder_and_directories_walked(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "a.ss").write_text(SRC, encoding="utf-8")
    (tmp_path / "models" / "b.ss").write_text("dim D = 4\n", encoding="utf-8")
    r = run(str(tmp_path / "models"), "-o", str(tmp_path / "typings"))
    assert r.exit_code == 0, r.output
    assert sorted(os.listdir(tmp_path / "typings")) == ["a.pyi", "b.pyi"]
    assert "D: Final = 4" in (tmp_path / "typings" / "b.pyi").read_text()
    assert not (tmp_path / "models" / "a.pyi").exists()


def test_a_file_with_errors_prints_them_and_no_stub_is_written(tmp_path):
    good, bad = tmp_path / "good.ss", tmp_path / "bad.ss"
    good.write_text(SRC, encoding="utf-8")
    bad.write_text("fn f(x: [n]) -> [n] = y\n", encoding="utf-8")
    r = run(str(good), str(bad))
    assert r.exit_code == 1
    assert "error[E0201]" in r.output and "bad.ss:1" in r.output
    assert not (tmp_path / "good.pyi").exists() and not (tmp_path / "bad.pyi").exists()


def test_two_files_that_would_write_one_stub_are_a_usage_error(tmp_path):
    for d in ("x", "y"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "m.ss").write_text(SRC, encoding="utf-8")
    r = run(str(tmp_path / "x" / "m.ss"), str(tmp_path / "y" / "m.ss"), "-o", str(tmp_path / "out"))
    assert r.exit_code == 2 and "would both write" in r.output
    assert not (tmp_path / "out").exists()
    r = run(str(tmp_path / "nope.ss"))
    assert r.exit_code == 2 and "cannot read" in r.output


def test_the_style_and_paths_come_from_the_configuration(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.ss").write_text(SRC, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.shapescript]\npaths = ["src"]\nstubs = "jaxtyping"\n', encoding="utf-8")
    r = run(cwd=tmp_path)
    assert r.exit_code == 0, r.output
    assert "def double(x: Float32[Tensor, 'b n']) -> Float32[Tensor, 'b n']:" in \
        (tmp_path / "src" / "m.pyi").read_text().replace('"', "'")
    (tmp_path / "pyproject.toml").write_text('[tool.shapescript]\nstubs = "mypy"\n')
    r = run(str(tmp_path / "src"), cwd=tmp_path)
    assert r.exit_code == 2
    assert "`stubs` must be 'pyrefly' or 'jaxtyping' (or false)" in r.output


def test_build_writes_the_stub_beside_the_module_when_asked(tmp_path):
    src = tmp_path / "m.ss"
    src.write_text(SRC, encoding="utf-8")
    r = CliRunner().invoke(build.command, [str(src)])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "m.py").exists() and not (tmp_path / "m.pyi").exists()
    (tmp_path / "pyproject.toml").write_text('[tool.shapescript]\nstubs = "pyrefly"\n')
    os.makedirs(tmp_path / "out")
    r = CliRunner().invoke(build.command, [str(src), "-o", str(tmp_path / "out" / "mod.py")])
    assert r.exit_code == 0, r.output
    assert "def double(" in (tmp_path / "out" / "mod.pyi").read_text()
    r = CliRunner().invoke(build.command, [str(src), "--stubs", "none"])
    assert r.exit_code == 0 and not (tmp_path / "m.pyi").exists()
    r = CliRunner().invoke(build.command, [str(src), "--stubs", "jaxtyping"])
    assert r.exit_code == 0 and "Float32[Tensor" in (tmp_path / "m.pyi").read_text()
