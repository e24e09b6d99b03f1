"""``shapescript check``: the command line over the configuration as ruff resolves them,
``# noqa`` suppressions and E1901, ``--exit-zero``, and ``--fix`` (the editor's quick
fixes). The real compiler checks small programs written into a temporary folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from shapescript_cli.main import main

RANKS = "dim D = 4\nfn g(x: [n D]) -> [n] = x\n"             # E0402 at 2:25
UNKNOWN = "fn f(x: [n]) -> [n] = y\n"                       # E0201 at 1:23
NUMNAME = "fn double(x: [n]) -> [n] = 2x\n"                  # E0104, fixed by `2 * x`


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, ["--color", "never", *args], input=input,
                              prog_name="shapescript")


def codes(stdout: str) -> list[str]:
    """The codes of ``--format concise`` output, in order."""
    return [line.split("[")[1].split("]")[0] for line in stdout.splitlines()]


@pytest.fixture
def both(tmp_path, monkeypatch):
    """A folder with an E0402 and an E0201, as the current folder."""
    (tmp_path / "ranks.ss").write_text(RANKS)
    (tmp_path / "unknown.ss").write_text(UNKNOWN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def configure(root: Path, table: str) -> None:
    (root / "pyproject.toml").write_text("[tool.shapescript]\n" + table)


# ---------------------------------------------------------------------------
# the command line over the configuration (ruff's rules)


def test_a_command_line_select_wins_over_a_configured_ignore(both):
    configure(both, 'ignore = ["E0402"]\n')
    assert codes(run("check", "--format", "concise", ".").stdout) == ["E0201"]
    r = run("check", "--format", "concise", "--select", "E0402", ".")
    assert (r.exit_code, codes(r.stdout)) == (1, ["E0402"])


def test_a_command_line_select_starts_afresh_from_its_own_codes(both):
    # ruff: with select = [E, F] and ignore = [F401], `--select F401` enforces F401 only.
    configure(both, 'select = ["E04", "E02"]\nignore = ["E0402"]\n')
    r = run("check", "--format", "concise", "--select", "E0402", ".")
    assert codes(r.stdout) == ["E0402"]


def test_a_command_line_ignore_keeps_the_configured_select_and_ignore(both):
    configure(both, 'select = ["E0402"]\n')
    assert codes(run("check", "--format", "concise", ".").stdout) == ["E0402"]
    r = run("check", "--format", "concise", "--ignore", "E04", ".")
    assert (r.exit_code, r.stdout) == (0, "")
    configure(both, 'ignore = ["E0201"]\n')
    r = run("check", "--format", "concise", "--ignore", "E0402", ".")
    assert (r.exit_code, r.stdout) == (0, "")


def test_the_more_specific_code_wins_within_a_level(both):
    # `--ignore ALL --select E0402` reports E0402 only; the same length: ignore wins.
    r = run("check", "--format", "concise", "--ignore", "ALL", "--select", "E0402", ".")
    assert codes(r.stdout) == ["E0402"]
    configure(both, 'ignore = ["E"]\nselect = ["E02"]\n')
    assert codes(run("check", "--format", "concise", ".").stdout) == ["E0201"]
    r = run("check", "--format", "concise", "--select", "E02", "--ignore", "E02", ".")
    assert (r.exit_code, r.stdout) == (0, "")


# ---------------------------------------------------------------------------
# # noqa


def test_noqa_hides_its_codes_on_its_line(tmp_path):
    f = tmp_path / "m.ss"
    f.write_text("dim D = 4\nfn g(x: [n D]) -> [n] = x  # noqa: E0402\n")
    r = run("check", str(f))
    assert (r.exit_code, r.stdout) == (0, "")
    # Another code on the line is still reported, with the unused part of the comment.
    f.write_text("dim D = 4\nfn g(x: [n D]) -> [n] = x  # NOQA: E0201\n")
    r = run("check", "--format", "concise", str(f))
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        f"{f}:2:25: error[E0402]: ranks differ: the return type is `[n]`, with 1 axis, "
        "but this is `[n D]`, with 2",
        f"{f}:2:36: warning[E1901]: unused suppression: no E0201 on this line"]


def test_unused_and_codeless_suppressions_are_warnings(tmp_path):
    f = tmp_path / "m.ss"
    f.write_text("fn f(x: [n]) -> [n] = x  # noqa: E0402\n"
                 "fn g(x: [n]) -> [n] = x  # noqa\n"
                 "fn h(x: [n]) -> [n] = x  # noqa: E9999\n"
                 'fn k(s: str = "# noqa: E0402") -> str = s\n'
                 "## A doc comment that says noqa: E0402 is not a suppression.\n"
                 "fn l(x: [n]) -> [n] = x\n")
    r = run("check", "--format", "concise", str(f))
    assert r.exit_code == 0  # warnings
    assert [line.split(": ", 1)[1] for line in r.stdout.splitlines()] == [
        "warning[E1901]: unused suppression: no E0402 on this line",
        "warning[E1901]: this suppression names no code",
        "warning[E1901]: unused suppression: `E9999` is not a code"]
    # E1901 is a code like any other: ignored, it is gone.
    r = run("check", "--ignore", "E1901", str(f))
    assert (r.exit_code, r.stdout) == (0, "")


def test_noqa_in_an_imported_module_hides_its_diagnostic_there(tmp_path):
    (tmp_path / "layers.ss").write_text("dim D = 4\nfn g(x: [n D]) -> [n] = x  # noqa: E0402\n")
    (tmp_path / "main.ss").write_text("import layers\nfn f(x: [n layers.D]) -> [n] = layers.g(x)\n")
    r = run("check", str(tmp_path / "main.ss"))
    assert (r.exit_code, r.stdout) == (0, "")


# ---------------------------------------------------------------------------
# --exit-zero


def test_exit_zero_reports_errors_and_exits_0(both):
    r = run("check", "--exit-zero", "--format", "concise", ".")
    assert r.exit_code == 0
    assert codes(r.stdout) == ["E0402", "E0201"]
    # A mistake of the command is still exit 2.
    assert run("check", "--exit-zero", "missing.ss").exit_code == 2


# ---------------------------------------------------------------------------
# --fix


def test_fix_makes_the_quick_fixes_and_reports_what_is_left(tmp_path):
    f = tmp_path / "m.ss"
    f.write_text(NUMNAME + "fn t(x: [n]) -> [n] = 3y\n" + UNKNOWN.replace("fn f", "fn u"))
    r = run("check", "--fix", "--format", "concise", str(f))
    assert f.read_text() == ("fn double(x: [n]) -> [n] = 2 * x\n"
                             "fn t(x: [n]) -> [n] = 3 * y\n"
                             "fn u(x: [n]) -> [n] = y\n")
    # What is left: the unknown names, which no help fixes.
    assert r.exit_code == 1
    assert codes(r.stdout) == ["E0201", "E0201"]
    assert "Fixed 2 diagnostics." in r.stderr
    # A clean file is left as it is.
    g = tmp_path / "g.ss"
    g.write_text(NUMNAME.replace("2x", "2 * x"))
    r = run("check", "--fix", str(g))
    assert (r.exit_code, g.read_text()) == (0, NUMNAME.replace("2x", "2 * x"))


def test_fix_leaves_hidden_diagnostics_alone(tmp_path):
    f = tmp_path / "m.ss"
    f.write_text(NUMNAME.rstrip("\n") + "  # noqa: E0104\n")
    r = run("check", "--fix", str(f))
    assert r.exit_code == 0 and "2x" in f.read_text()
    f.write_text(NUMNAME)
    r = run("check", "--fix", "--ignore", "E0104", str(f))
    assert (r.exit_code, f.read_text()) == (0, NUMNAME)


def test_fix_of_stdin_is_a_usage_error(tmp_path):
    r = run("check", "--fix", "-", input=NUMNAME)
    assert r.exit_code == 2 and "--fix" in r.stderr
