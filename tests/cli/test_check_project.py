"""``shapescript check`` on whole projects, as linters run: directories, .gitignore and
excludes, ``[tool.shapescript]``, select/ignore and per-file ignores, stdin, the summary,
``--statistics`` and the ``json``/``github``/``sarif`` formats. The real compiler checks
small programs written into a temporary folder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from shapescript_cli.main import main

GOOD = "fn f(x: [n]) -> [n] = x\n"
UNKNOWN = "fn f(x: [n]) -> [n] = y\n"                       # E0201 at 1:23
RANKS = "dim D = 4\nfn g(x: [n D]) -> [n] = x\n"             # E0402 at 2:25
WARNS = "fn join(halves: [2 n]) -> [2n] = rearrange(halves, two n -> (two n))\n"  # E0105
SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def run(*args: str, input: str | bytes | None = None):
    return CliRunner().invoke(main, ["--color", "never", *args], input=input,
                              prog_name="shapescript")


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)


def concise_files(stdout: str) -> list[str]:
    return [line.split(":")[0] for line in stdout.splitlines()]


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A git-looking project: errors in src/, an ignored build, a virtualenv, notes."""
    write(tmp_path, {
        ".git/HEAD": "ref: refs/heads/main\n",
        ".gitignore": "generated/\n*.tmp.ss\n!keep.tmp.ss\n",
        "src/a.ss": UNKNOWN,
        "src/b.ss": GOOD,
        "src/deep/c.ss": RANKS,
        "src/keep.tmp.ss": UNKNOWN,
        "src/scratch.tmp.ss": UNKNOWN,
        "generated/g.ss": UNKNOWN,
        ".venv/lib/v.ss": UNKNOWN,
        "notes.txt": "not a program",
    })
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ---------------------------------------------------------------------------
# The walk


def test_a_directory_is_walked_sorted_respecting_gitignore_and_default_excludes(project):
    r = run("check", "--format", "concise", ".")
    assert r.exit_code == 1
    assert concise_files(r.stdout) == ["src/a.ss", "src/deep/c.ss", "src/keep.tmp.ss"]


def test_nested_gitignore_and_info_exclude(project):
    write(project, {"src/deep/.gitignore": "c.ss\n", ".git/info/exclude": "keep.tmp.ss\n"})
    r = run("check", "--format", "concise", "src")
    assert concise_files(r.stdout) == ["src/a.ss"]


def test_respect_gitignore_false_checks_ignored_files(project):
    write(project, {"pyproject.toml": "[tool.shapescript]\nrespect-gitignore = false\n"})
    r = run("check", "--format", "concise", ".")
    # the default excludes (.venv) still apply
    assert concise_files(r.stdout) == ["generated/g.ss", "src/a.ss", "src/deep/c.ss",
                                       "src/keep.tmp.ss", "src/scratch.tmp.ss"]


def test_exclude_setting_applies_to_walks_and_named_files(project):
    write(project, {"pyproject.toml": '[tool.shapescript]\nextend-exclude = ["deep/", "a.ss"]\n'})
    r = run("check", "--format", "concise", "src")
    assert concise_files(r.stdout) == ["src/keep.tmp.ss"]
    # A pre-commit hook names every staged file: the excludes hold for them too.
    r = run("check", "--format", "concise", "src/a.ss", "src/b.ss")
    assert (r.exit_code, r.stdout) == (0, "")
    # Only excluded files named: nothing to check, and not a mistake of the command.
    r = run("check", "--format", "concise", "src/a.ss")
    assert (r.exit_code, r.output) == (0, "")


def test_named_files_are_checked_whatever_gitignore_says(project):
    r = run("check", "--format", "concise", "src/scratch.tmp.ss", "generated/g.ss")
    assert concise_files(r.stdout) == ["src/scratch.tmp.ss", "generated/g.ss"]


def test_no_ss_files_is_exit_2(project):
    (project / "empty").mkdir()
    r = run("check", "empty")
    assert r.exit_code == 2
    assert "error: no .ss files to check in empty" in r.stderr


def test_a_file_found_twice_is_checked_once(project):
    r = run("check", "--format", "concise", "src/a.ss", "src", "src/a.ss")
    assert concise_files(r.stdout) == ["src/a.ss", "src/deep/c.ss", "src/keep.tmp.ss"]


def test_a_fifo_in_a_walked_directory_is_skipped(project):
    import os

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(project / "src" / "pipe.ss")
    r = run("check", "--format", "concise", "src")
    assert concise_files(r.stdout) == ["src/a.ss", "src/deep/c.ss", "src/keep.tmp.ss"]


# ---------------------------------------------------------------------------
# Configuration


def test_config_is_found_in_the_nearest_pyproject_upward(project, monkeypatch):
    # The outer one ignores E0201; the nearer one, in src/, ignores E0402 and wins.
    write(project, {
        "pyproject.toml": '[tool.shapescript]\nignore = ["E0201"]\n',
        "src/pyproject.toml": '[tool.shapescript]\nignore = ["E0402"]\n',
        "src/deep/pyproject.toml": "[project]\nname = 'no-table-here'\n",
    })
    monkeypatch.chdir(project / "src" / "deep")
    r = run("check", "--format", "concise", "..")
    assert [line.split(" ")[1] for line in r.stdout.splitlines()] == ["error[E0201]:"] * 2
    monkeypatch.chdir(project)
    r = run("check", "--format", "concise", "src")
    assert concise_files(r.stdout) == ["src/deep/c.ss"]


def test_shapescript_toml_wins_over_pyproject_in_one_folder(project):
    write(project, {
        "pyproject.toml": '[tool.shapescript]\nignore = ["E0201"]\n',
        "shapescript.toml": 'ignore = ["E0402"]\n',
    })
    r = run("check", "--format", "concise", "src")
    assert concise_files(r.stdout) == ["src/a.ss", "src/keep.tmp.ss"]


def test_paths_setting_is_what_check_checks_without_a_path(project):
    write(project, {"pyproject.toml": '[tool.shapescript]\npaths = ["src/deep"]\n'})
    r = run("check", "--format", "concise")
    assert r.exit_code == 1
    assert [Path(f).name for f in concise_files(r.stdout)] == ["c.ss"]


def test_no_path_and_no_paths_setting_is_a_usage_error(project):
    r = run("check")
    assert r.exit_code == 2
    assert "set `paths` in [tool.shapescript]" in r.stderr


@pytest.mark.parametrize("text, message", [
    ("[tool.shapescript]\nignore = [\"E0201\"]\nexlude = [\"x\"]\n", "unknown key `exlude`"),
    ("[tool.shapescript]\nselect = \"E0201\"\n", "`select` must be a list of strings"),
    ("[tool.shapescript]\nselect = [\"E9998\"]\n", "no such error code: E9998"),
    ("[tool.shapescript]\nignore = [\"W12\"]\n", "`W12` is not a code"),
    ("[tool.shapescript]\nchecks = \"sometimes\"\n", "`checks` must be one of"),
    ("[tool.shapescript\n", "not valid TOML"),
])
def test_a_bad_configuration_is_exit_2_naming_file_and_key(project, text, message):
    write(project, {"pyproject.toml": text})
    r = run("check", "src")
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("error: ") and message in r.stderr
    assert "pyproject.toml" in r.stderr
    assert "Traceback" not in r.output


def test_config_option_names_the_file(project):
    write(project, {"other.toml": '[tool.shapescript]\nselect = ["E04"]\n'})
    r = run("check", "--format", "concise", "--config", "other.toml", "src")
    assert concise_files(r.stdout) == ["src/deep/c.ss"]
    assert run("check", "--config", "missing.toml", "src").exit_code == 2


# ---------------------------------------------------------------------------
# select, ignore, per-file ignores


def test_select_and_ignore_from_the_command_line(project):
    r = run("check", "--format", "concise", "--select", "E0402", "src")
    assert concise_files(r.stdout) == ["src/deep/c.ss"]
    r = run("check", "--format", "concise", "--ignore", "E02,E0402", "src")
    assert (r.exit_code, r.stdout) == (0, "")
    r = run("check", "--format", "concise", "--select", "all", "--ignore", "e0402", "src")
    assert concise_files(r.stdout) == ["src/a.ss", "src/keep.tmp.ss"]


def test_command_line_codes_win_over_the_configuration(project):
    write(project, {"pyproject.toml": '[tool.shapescript]\nselect = ["E0402"]\n'})
    r = run("check", "--format", "concise", "--select", "E0201", "src")
    assert concise_files(r.stdout) == ["src/a.ss", "src/keep.tmp.ss"]


def test_bad_code_on_the_command_line_is_exit_2(project):
    r = run("check", "--ignore", "banana", "src")
    assert r.exit_code == 2 and "--ignore: `banana` is not a code" in r.stderr


def test_per_file_ignores(project):
    write(project, {"pyproject.toml": '[tool.shapescript.per-file-ignores]\n'
                                      '"src/deep/**" = ["E04"]\n"keep.tmp.ss" = ["E0201"]\n'
                                      '"src/a.ss" = ["E0402"]\n'})
    r = run("check", "--format", "concise", "src")
    # c.ss's E0402 is ignored under deep/; keep.tmp.ss's E0201 by its name anywhere;
    # a.ss's ignore doesn't name its code.
    assert concise_files(r.stdout) == ["src/a.ss"]


def test_ignoring_every_error_makes_the_check_pass(project):
    r = run("check", "--ignore", "E", "src")
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "")


# ---------------------------------------------------------------------------
# stdin


def test_stdin_with_a_filename(project):
    r = run("check", "--format", "concise", "-", "--stdin-filename", "src/x.ss",
            input=UNKNOWN)
    assert (r.exit_code, r.stdout) == (1, "src/x.ss:1:23: error[E0201]: unknown name `y`\n")
    assert run("check", "-", input=GOOD).exit_code == 0


def test_stdin_full_format_shows_the_source_line(project):
    r = run("check", "-", input=UNKNOWN)
    assert r.exit_code == 1
    assert " --> <stdin>:1:23" in r.stdout and "1 | fn f(x: [n]) -> [n] = y" in r.stdout


def test_stdin_resolves_imports_beside_its_filename(project):
    write(project, {"lib/shapes.ss": "dim D = 4\nfn ident(x: [n D]) -> [n D] = x\n"})
    program = "import shapes\nfn f(x: [n shapes.D]) -> [n] = shapes.ident(x)\n"
    beside = run("check", "--format", "concise", "-", "--stdin-filename", "lib/main.ss",
                 input=program)
    elsewhere = run("check", "--format", "concise", "-", "--stdin-filename", "main.ss",
                    input=program)
    assert beside.exit_code == 1 and "E0402" in beside.stdout       # ranks, once imported
    assert elsewhere.exit_code == 1 and "E0402" not in elsewhere.stdout


def test_stdin_that_is_not_utf8_is_its_diagnostic(project):
    r = run("check", "--format", "concise", "-", input=b"fn f(x: [n]) -> [n] = x\xff\n")
    assert r.exit_code == 1 and "error[E0101]" in r.stdout and "Traceback" not in r.output


def test_stdin_filename_without_dash_and_dash_twice_are_usage_errors(project):
    assert run("check", "src", "--stdin-filename", "x.ss").exit_code == 2
    assert run("check", "-", "-", input=GOOD).exit_code == 2


# ---------------------------------------------------------------------------
# Summary, statistics, colour


def test_summary_line_on_stderr_for_a_project(project):
    r = run("check", "--format", "concise", "src")
    assert r.stderr == "Found 3 errors in 3 files (4 checked).\n"
    assert "Found" not in r.stdout
    assert run("check", "--format", "concise", "-q", "src").stderr == ""


def test_summary_counts_warnings_and_is_absent_for_one_file_or_a_clean_check(project):
    write(project, {"w/a.ss": WARNS, "w/b.ss": UNKNOWN})
    r = run("check", "--format", "concise", "w")
    assert "warning[E0105]" in r.stdout
    assert r.stderr == "Found 1 error and 1 warning in 2 files (2 checked).\n"
    assert run("check", "src/a.ss").stderr == ""       # one file: as the compiler renders
    assert run("check", "src/b.ss").output == ""       # clean: silent


def test_statistics(project):
    r = run("check", "--statistics", "src")
    assert r.exit_code == 1
    assert r.stdout == "2  E0201  unknown name\n1  E0402  ranks differ\n"
    r = run("check", "--statistics", "--format", "json", "src")
    assert json.loads(r.stdout) == [{"code": "E0201", "count": 2, "title": "unknown name"},
                                    {"code": "E0402", "count": 1, "title": "ranks differ"}]


def test_color_option_on_check(project):
    r = run("check", "--color", "always", "src/a.ss")
    assert "\x1b[1;31merror[E0201]" in r.stdout
    assert "\x1b" not in run("check", "--color", "never", "src/a.ss").stdout


# ---------------------------------------------------------------------------
# Formats


def test_json_has_a_schema_version_and_explain_links(project):
    r = run("check", "--format", "json", "src")
    data = json.loads(r.stdout)
    assert [d["code"] for d in data] == ["E0201", "E0402", "E0201"]
    for d in data:
        assert d["schema_version"] == 1
        assert d["explain"] == f"shapescript explain {d['code']}"
        assert d["url"].endswith(f"/explanations/{d['code']}.md")
        # the core's fields, unchanged
        assert {"code", "severity", "message", "file", "line", "column", "end_line",
                "end_column", "labels", "help"} <= set(d)
    assert (data[0]["file"], data[0]["line"], data[0]["column"]) == ("src/a.ss", 1, 23)


def test_github_format(project):
    r = run("check", "--format", "github", "src/a.ss", "src/deep/c.ss")
    assert r.exit_code == 1
    assert r.stdout.splitlines() == [
        "::error file=src/a.ss,line=1,col=23,endLine=1,endColumn=24,"
        "title=E0201 unknown name::unknown name `y` [E0201]",
        "::error file=src/deep/c.ss,line=2,col=25,endLine=2,endColumn=26,"
        "title=E0402 ranks differ::ranks differ: the return type is `[n]`, with 1 axis, "
        "but this is `[n D]`, with 2 [E0402]",
    ]


def test_github_format_escapes_newlines_and_separators(project):
    write(project, {"w,1.ss": WARNS})
    r = run("check", "--format", "github", "w,1.ss")
    [line] = r.stdout.splitlines()
    assert line.startswith("::warning file=w%2C1.ss,line=1,")
    assert "%0Ahelp: " in line  # the help, on a second line of the annotation


def test_sarif_is_valid_against_the_schema(project):
    r = run("check", "--format", "sarif", "src", "-", "--stdin-filename", "src/x.ss",
            input="dim D = 4\nfn g(x: [n D]) -> [n] = x\n")
    assert r.exit_code == 1
    log = json.loads(r.stdout)
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.validate(log, schema, cls=jsonschema.Draft7Validator)
    run_ = log["runs"][0]
    assert [rule["id"] for rule in run_["tool"]["driver"]["rules"]] == ["E0201", "E0402"]
    assert run_["tool"]["driver"]["rules"][1]["shortDescription"]["text"] == "ranks differ"
    assert run_["tool"]["driver"]["rules"][0]["helpUri"].endswith("/E0201.md")
    results = run_["results"]
    assert [(x["ruleId"], x["level"]) for x in results] == [
        ("E0201", "error"), ("E0402", "error"), ("E0201", "error"), ("E0402", "error")]
    loc = results[1]["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "src/deep/c.ss", "uriBaseId": "%SRCROOT%"}
    assert loc["region"] == {"startLine": 2, "startColumn": 25, "endLine": 2,
                             "endColumn": 26}
    assert results[3]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
        "src/x.ss"


def test_sarif_of_a_clean_project_is_an_empty_run(project):
    r = run("check", "--format", "sarif", "src/b.ss")
    assert r.exit_code == 0
    log = json.loads(r.stdout)
    jsonschema.validate(log, json.loads(SARIF_SCHEMA.read_text()),
                        cls=jsonschema.Draft7Validator)
    assert log["runs"][0]["results"] == []


def test_exit_codes_are_unchanged(project):
    assert run("check", "src/b.ss").exit_code == 0
    assert run("check", "src").exit_code == 1
    assert run("check", "src/nope.ss").exit_code == 2


def test_check_of_a_project_imports_no_torch(project):
    code = ("import sys\nfrom shapescript_cli.main import main\n"
            "try:\n    main(['check', '--format', 'sarif', 'src'])\n"
            "except SystemExit:\n    pass\n"
            "assert 'torch' not in sys.modules and 'numpy' not in sys.modules\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120, cwd=project)
    assert r.returncode == 0, r.stderr


# ---------------------------------------------------------------------------
# checks / value-checks: the defaults of build and run


def build(*args: str):
    # In a process of its own: building in this one would bind shapescript.api's names
    # for the other tests, which put stand-ins in shapescript.compiler.
    return subprocess.run([sys.executable, "-m", "shapescript_cli", "build", *args],
                          capture_output=True, text=True, timeout=120)


def test_build_takes_its_check_modes_from_the_settings(project):
    write(project, {"m/x.ss": "dim D = 4\nfn f(x: [n D]) -> [n D] = x\n"})
    assert build("m/x.ss", "-o", "always.py").returncode == 0
    assert build("m/x.ss", "--checks", "never", "-o", "never.py").returncode == 0
    write(project, {"pyproject.toml": '[tool.shapescript]\nchecks = "never"\n'})
    assert build("m/x.ss", "-o", "configured.py").returncode == 0
    assert build("m/x.ss", "--checks", "always", "-o", "given.py").returncode == 0
    always, never = (project / "always.py").read_text(), (project / "never.py").read_text()
    assert always != never
    assert (project / "configured.py").read_text() == never
    assert (project / "given.py").read_text() == always


def test_build_with_a_bad_configuration_is_exit_2(project):
    write(project, {"m/x.ss": GOOD, "pyproject.toml": '[tool.shapescript]\nchecks = "no"\n'})
    r = build("m/x.ss", "-o", "x.py")
    assert r.returncode == 2 and "`checks` must be one of" in r.stderr
    assert not (project / "x.py").exists()
