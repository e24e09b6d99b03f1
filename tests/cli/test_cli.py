"""The ``shapescript`` command: explain, check (against a stand-in compiler), plugins,
exit codes (DECISIONS §28)."""

from __future__ import annotations

import importlib.util
import io
import json
import subprocess
import sys
import types

import click
import pytest
from click.testing import CliRunner

from shapescript.codes import CODES, explain
from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript_cli import main as cli_main
from shapescript_cli.main import main
from shapescript.term import debug_enabled, use_color

EXPORT_MISSING = "error: shapescript export needs pip install 'shapescript[export]'\n"


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env=env, prog_name="shapescript")


# ---------------------------------------------------------------------------
# explain


def test_explain_prints_the_page():
    r = run("explain", "E0413")
    assert r.exit_code == 0
    assert r.stdout == explain("E0413")
    assert r.stdout.startswith("E0413\n\n")


def test_explain_normalises_the_code():
    assert run("explain", "e0406").stdout == run("explain", "0406").stdout == explain("E0406")


@pytest.mark.parametrize("code", ["E9999", "E0412", "E3399", "banana", "E12345"])
def test_explain_unknown_code_is_exit_2_with_a_message(code):
    r = run("explain", code)
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr.startswith("error: ")
    assert "code" in r.stderr


def test_explain_list():
    r = run("explain", "--list")
    assert r.exit_code == 0
    lines = r.stdout.splitlines()
    assert len(lines) == len(CODES)
    assert lines[0] == "E0000  internal error"
    assert "E0413  the shape of a Python value is unknown" in lines
    assert "E0105  `2 n` beside `2n` in one signature (warning)" in lines


def test_explain_needs_a_code_or_list_not_both():
    assert run("explain").exit_code == 2
    assert run("explain", "E0413", "--list").exit_code == 2


# ---------------------------------------------------------------------------
# check, with a stand-in for shapescript.compiler.check_file


SRC = "fn f(x: [n]) -> [n] = x * factor\n"


@pytest.fixture
def ss_file(tmp_path):
    path = tmp_path / "scale.ss"
    path.write_text(SRC)
    return str(path)


def install_compiler(monkeypatch, check_file) -> None:
    """A stand-in ``shapescript.compiler`` with ``check_file`` (the real one's signature:
    path -> (sorted diagnostics, source texts by path)), whatever the real one's state."""
    module = types.ModuleType("shapescript.compiler")
    module.check_file = check_file
    monkeypatch.setitem(sys.modules, "shapescript.compiler", module)


def fake_checker(monkeypatch, result=None, error: Exception | None = None):
    """Install a check_file that returns ``result(path)`` or raises ``error``."""
    calls = []

    def check_file(path: str):
        calls.append(path)
        if error is not None:
            raise error
        return result(path)

    install_compiler(monkeypatch, check_file)
    return calls


def unknown_factor(path: str):
    d = Diagnostic.error("E0201", "unknown name `factor`", Span(path, 1, 27, 1, 33),
                         "not found in this scope", help="declare it as a parameter")
    return [d], {path: SRC}


def only_warning(path: str):
    d = Diagnostic.warning("E0105", "`2 n` beside `2n`", Span(path, 1, 9, 1, 10))
    return [d], {path: SRC}


def test_check_clean_file_exit_0_and_silent(monkeypatch, ss_file):
    calls = fake_checker(monkeypatch, lambda p: ([], {p: SRC}))
    r = run("check", ss_file)
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "")
    assert calls == [ss_file]


def test_check_warnings_only_exit_0(monkeypatch, ss_file):
    fake_checker(monkeypatch, only_warning)
    r = run("check", ss_file)
    assert r.exit_code == 0
    assert r.stdout.startswith("warning[E0105]: `2 n` beside `2n`\n")


def test_check_errors_exit_1_full_format(monkeypatch, ss_file):
    fake_checker(monkeypatch, unknown_factor)
    r = run("check", ss_file)
    assert r.exit_code == 1
    assert r.stdout == f"""\
error[E0201]: unknown name `factor`
 --> {ss_file}:1:27
  |
1 | fn f(x: [n]) -> [n] = x * factor
  |                           ^^^^^^ not found in this scope
  |
  = help: declare it as a parameter

For more information about E0201, run `shapescript explain E0201`.
"""
    assert "\x1b" not in r.stdout  # not a terminal: no colour


def test_check_concise_and_json(monkeypatch, ss_file):
    fake_checker(monkeypatch, unknown_factor)
    r = run("check", ss_file, "--format", "concise")
    assert (r.exit_code, r.stdout) == (1, f"{ss_file}:1:27: error[E0201]: unknown name `factor`\n")
    r = run("check", "--format", "json", ss_file)
    assert r.exit_code == 1
    [obj] = json.loads(r.stdout)
    assert obj["code"] == "E0201" and obj["file"] == ss_file and obj["column"] == 27
    assert obj["labels"][0]["message"] == "not found in this scope"


def test_check_json_clean_is_an_empty_array(monkeypatch, ss_file):
    fake_checker(monkeypatch, lambda p: ([], {p: SRC}))
    r = run("check", "--format", "json", ss_file)
    assert (r.exit_code, r.stdout) == (0, "[]\n")


def test_check_several_files_in_order(monkeypatch, tmp_path):
    paths = []
    for name in ("b.ss", "a.ss"):
        (tmp_path / name).write_text(SRC)
        paths.append(str(tmp_path / name))
    calls = fake_checker(monkeypatch, unknown_factor)
    r = run("check", "--format", "concise", *paths)
    assert calls == paths
    assert [line.split(":")[0] for line in r.stdout.splitlines()] == paths
    assert r.exit_code == 1


def test_check_bad_format_and_no_file_are_usage_errors(monkeypatch, ss_file):
    fake_checker(monkeypatch, unknown_factor)
    assert run("check", "--format", "xml", ss_file).exit_code == 2
    assert run("check").exit_code == 2


def test_check_missing_file_exit_2(monkeypatch, tmp_path):
    calls = fake_checker(monkeypatch, unknown_factor)
    r = run("check", str(tmp_path / "nope.ss"))
    assert r.exit_code == 2
    assert r.stderr == f"error: no such file: {tmp_path / 'nope.ss'}\n"
    assert calls == []
    assert run("check", str(tmp_path)).exit_code == 2  # a directory


def test_check_internal_error_exit_3_without_traceback(monkeypatch, ss_file):
    fake_checker(monkeypatch, error=RuntimeError("boom"))
    r = run("check", ss_file, env={"SHAPESCRIPT_DEBUG": None})
    assert r.exit_code == 3
    assert r.stdout == f"""\
error[E0000]: internal error
 --> {ss_file}:1:1
  |
  = note: this is a bug in ShapeScript, not in your program; please report it, with this file
"""
    assert "Traceback" not in r.output


def test_check_internal_error_at_the_failures_span(monkeypatch, ss_file):
    exc = RuntimeError("boom")
    exc.span = Span(ss_file, 1, 5, 1, 6)
    fake_checker(monkeypatch, error=exc)
    r = run("check", ss_file, "--format", "concise")
    assert (r.exit_code, r.stdout) == (3, f"{ss_file}:1:5: error[E0000]: internal error\n")


def test_check_internal_error_traceback_with_debug(monkeypatch, ss_file):
    fake_checker(monkeypatch, error=RuntimeError("boom"))
    r = run("check", ss_file, env={"SHAPESCRIPT_DEBUG": "1"})
    assert r.exit_code == 3
    assert r.stdout.startswith("error[E0000]: internal error\n")
    assert "Traceback (most recent call last)" in r.stderr
    assert "RuntimeError: boom" in r.stderr


def test_check_internal_error_in_json_is_a_diagnostic(monkeypatch, ss_file):
    fake_checker(monkeypatch, error=RuntimeError("boom"))
    r = run("check", "--format", "json", ss_file)
    assert r.exit_code == 3
    assert [d["code"] for d in json.loads(r.stdout)] == ["E0000"]


def test_check_other_files_still_checked_after_an_internal_error(monkeypatch, tmp_path):
    a, b = tmp_path / "a.ss", tmp_path / "b.ss"
    a.write_text(SRC)
    b.write_text(SRC)

    def check_file(path):
        if path == str(a):
            raise ValueError("bug")
        return unknown_factor(path)

    install_compiler(monkeypatch, check_file)
    r = run("check", "--format", "concise", str(a), str(b))
    assert r.exit_code == 3
    assert [line.split(": ")[1] for line in r.stdout.splitlines()] == ["error[E0000]",
                                                                       "error[E0201]"]


def test_check_colours_on_a_terminal(monkeypatch, ss_file):
    fake_checker(monkeypatch, unknown_factor)
    monkeypatch.setattr("shapescript_cli.commands.check.use_color", lambda: True)
    r = CliRunner().invoke(main, ["check", ss_file], color=True)
    assert "\x1b[1;31merror[E0201]" in r.stdout


# ---------------------------------------------------------------------------
# colour and debug switches


class FakeStream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_use_color_only_on_a_terminal_without_no_color():
    assert use_color(FakeStream(True), "auto", {}) is True
    assert use_color(FakeStream(False), "auto", {}) is False
    assert use_color(FakeStream(True), "auto", {"NO_COLOR": "1"}) is False
    assert use_color(FakeStream(True), "auto", {"NO_COLOR": ""}) is True  # non-empty only
    assert use_color(FakeStream(True), "auto", {"TERM": "dumb"}) is False
    assert use_color(object(), "auto", {}) is False
    assert use_color(FakeStream(False), "auto", {"FORCE_COLOR": "1"}) is True
    assert use_color(FakeStream(True), "auto", {"FORCE_COLOR": "1", "NO_COLOR": "1"}) is False
    assert use_color(FakeStream(False), "always", {"NO_COLOR": "1"}) is True
    assert use_color(FakeStream(True), "never", {}) is False


def test_color_option_reaches_the_renderer(monkeypatch, ss_file):
    fake_checker(monkeypatch, unknown_factor)
    assert "\x1b[" in run("--color", "always", "check", ss_file).stdout
    assert "\x1b[" not in run("--color", "never", "check", ss_file,
                               env={"FORCE_COLOR": "1"}).stdout


def test_debug_switch():
    assert debug_enabled({"SHAPESCRIPT_DEBUG": "1"})
    assert not debug_enabled({"SHAPESCRIPT_DEBUG": "0"})
    assert not debug_enabled({})


# ---------------------------------------------------------------------------
# plugins, extras and optional commands


class FakeEntryPoint:
    def __init__(self, name: str, target):
        self.name, self.value, self.target, self.loads = name, f"fake:{name}", target, 0
        self.dist = None

    def load(self):
        self.loads += 1
        if isinstance(self.target, Exception):
            raise self.target
        return self.target


def test_help_lists_commands_without_importing_them(monkeypatch):
    ep = FakeEntryPoint("lsp", click.Command("lsp"))
    monkeypatch.setattr(cli_main, "_entry_points", lambda: {"lsp": ep})
    r = run("--help")
    assert r.exit_code == 0
    for name in ("check", "explain", "export", "lsp"):
        assert f"  {name} " in r.stdout
    assert ep.loads == 0


def test_plugin_command_is_loaded_only_when_invoked(monkeypatch, tmp_path):
    seen = []
    lsp = click.Command("lsp", callback=lambda stdio: seen.append(stdio),
                        params=[click.Option(["--stdio"], is_flag=True)])
    ep = FakeEntryPoint("lsp", lsp)
    monkeypatch.setattr(cli_main, "_entry_points", lambda: {"lsp": ep})
    assert run("explain", "E0413").exit_code == 0
    assert ep.loads == 0
    r = run("lsp", "--stdio")
    assert r.exit_code == 0 and seen == [True] and ep.loads == 1


def test_missing_command_plugin_names_its_extra(monkeypatch):
    monkeypatch.setattr(cli_main, "_entry_points", lambda: {})
    r = run("lsp", "--stdio")
    assert r.exit_code == 2
    assert r.stderr == "error: shapescript lsp needs the lsp extra: pip install 'shapescript[lsp]'\n"


def test_broken_plugin_is_an_internal_error(monkeypatch):
    ep = FakeEntryPoint("lsp", ModuleNotFoundError("No module named 'x'"))
    monkeypatch.setattr(cli_main, "_entry_points", lambda: {"lsp": ep})
    r = run("lsp")
    assert r.exit_code == 3
    assert r.stderr.startswith("error: shapescript lsp could not be loaded from fake:lsp")


@pytest.mark.parametrize("name", ["build", "run"])
def test_build_and_run_are_optional_modules(name):
    module = cli_main.LAZY_COMMANDS[name][0]
    listed = f"  {name} " in run("--help").stdout
    if importlib.util.find_spec(module) is None:
        assert not listed
        r = run(name, "x.ss")
        assert r.exit_code == 2
        assert r.stderr == f"error: shapescript {name} is not available in this installation\n"
    else:
        assert listed
        assert run(name, "--help").exit_code == 0


def test_unknown_command_is_a_usage_error():
    assert run("frobnicate").exit_code == 2


def test_unexpected_exception_is_an_internal_error(monkeypatch):
    def boom():
        raise RuntimeError("kaput")

    monkeypatch.setitem(main.commands, "boom", click.Command("boom", callback=boom))
    r = run("boom", env={"SHAPESCRIPT_DEBUG": None})
    assert r.exit_code == 3
    assert r.stderr.startswith("error[E0000]: internal error\n")
    assert "kaput" not in r.stderr
    r = run("boom", env={"SHAPESCRIPT_DEBUG": "1"})
    assert r.exit_code == 3 and "RuntimeError: kaput" in r.stderr


def test_console_entry_point_runs_as_a_module():
    r = subprocess.run([sys.executable, "-m", "shapescript_cli", "explain", "E0406"],
                       capture_output=True, text=True)
    assert r.returncode == 0
    assert r.stdout == explain("E0406")
