"""``shapescript run`` and ``shapescript build`` (DECISIONS §28), with a stand-in
compiler: a ``.ss`` file here is Python already; ``# error`` makes it fail."""

from __future__ import annotations

import os
import sys

import pytest
from click.testing import CliRunner

import shapescript.compiler
from shapescript import importer
from shapescript.diagnostics import Diagnostic
from shapescript.rt import config
from shapescript_cli.commands import build, run


class FakeCompiler:
    def __init__(self):
        self.calls = []

    def __call__(self, path, **kw):
        self.calls.append((os.path.basename(path), kw))
        with open(path, encoding="utf-8") as f:
            src = f.read()
        if "# error" in src:
            line = src.splitlines().index("# error") + 1
            diag = Diagnostic("E0201", "error", "unknown name `nope`", path, line, 1, line, 8)
            return shapescript.compiler.CompileOutput(None, [diag], {path: src}, ())
        return shapescript.compiler.CompileOutput(src + f"\nOPTIONS = {kw!r}\n", [], {path: src}, ())


@pytest.fixture
def fake(monkeypatch):
    fake = FakeCompiler()
    monkeypatch.setattr(shapescript.compiler, "compile_file", fake)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.delenv("SHAPESCRIPT_PYTHON", raising=False)
    saved_modules = set(sys.modules)
    yield fake
    importer.uninstall()
    config.reset_modes()
    for name in set(sys.modules) - saved_modules:
        del sys.modules[name]


def invoke(command, *args):
    return CliRunner().invoke(command, list(args), prog_name="shapescript")


# -- build -----------------------------------------------------------------------------------
def test_build_writes_the_module_next_to_the_source(tmp_path, fake):
    src = tmp_path / "model.ss"
    src.write_text("X = 1\n")
    r = invoke(build.command, str(src))
    assert r.exit_code == 0, r.output
    text = (tmp_path / "model.py").read_text()
    assert "_ss_source = r'''X = 1\n" in text
    ns = {"__file__": str(tmp_path / "model.py")}
    exec(compile(text, str(tmp_path / "model.py"), "exec"), ns)   # runs as model.ss
    assert ns["X"] == 1
    assert fake.calls == [("model.ss", {"checks": "always", "value_checks": "debug",
                                        "devices": None, "standalone": False})]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_build_options(tmp_path, fake):
    src = tmp_path / "model.ss"
    src.write_text("X = 1\n")
    out = tmp_path / "sub" / "out.py"
    out.parent.mkdir()
    r = invoke(build.command, str(src), "-o", str(out), "--standalone", "--checks", "never",
               "--value-checks", "always", "--devices", "cuda[0]")
    assert r.exit_code == 0, r.output
    assert fake.calls[0][1] == {"checks": "never", "value_checks": "always",
                                "devices": "cuda[0]", "standalone": True}
    assert out.exists() and not (tmp_path / "model.py").exists()


def test_build_errors_write_nothing(tmp_path, fake):
    src = tmp_path / "bad.ss"
    src.write_text("X = 1\n# error\n")
    (tmp_path / "bad.py").write_text("OLD\n")
    r = invoke(build.command, str(src))
    assert r.exit_code == 1
    assert "error[E0201]" in r.stderr and "unknown name `nope`" in r.stderr
    assert (tmp_path / "bad.py").read_text() == "OLD\n"


@pytest.mark.parametrize("args", [["missing.ss"], ["{src}", "--checks", "sometimes"],
                                  ["{src}", "--devices", "gpu"]])
def test_build_command_errors_exit_2(tmp_path, fake, args):
    src = tmp_path / "model.ss"
    src.write_text("X = 1\n")
    args = [a.format(src=src) if "{" in a else str(tmp_path / a) if a.endswith(".ss") else a
            for a in args]
    assert invoke(build.command, *args).exit_code == 2
    assert not (tmp_path / "model.py").exists()


# -- run -------------------------------------------------------------------------------------
def test_run_a_python_script_with_the_hook(tmp_path, fake):
    (tmp_path / "run_lib.ss").write_text("def double(x):\n    return 2 * x\n")
    script = tmp_path / "script.py"
    script.write_text(
        "import os, sys\n"
        "from run_lib import double\n"
        "print(__name__, sys.argv[1:], double(21))\n"
        "print(os.environ['SHAPESCRIPT_PYTHON'] == sys.executable)\n"
        "print(sys.path[0] == os.path.dirname(os.path.abspath(__file__)))\n")
    r = invoke(run.command, str(script), "--flag", "x")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == ["__main__ ['--flag', 'x'] 42", "True", "True"]
    assert fake.calls[0][1] == {"checks": "always", "value_checks": "debug"}


def test_run_passes_the_checks_settings(tmp_path, fake):
    (tmp_path / "run_lib2.ss").write_text("X = 1\n")
    script = tmp_path / "script.py"
    script.write_text("import run_lib2\nprint(run_lib2.OPTIONS)\n")
    r = invoke(run.command, "--checks", "never", "--value-checks", "always", str(script))
    assert r.exit_code == 0, r.output
    assert fake.calls[0][1] == {"checks": "never", "value_checks": "always"}


def test_run_compile_errors_print_diagnostics_without_a_traceback(tmp_path, fake):
    (tmp_path / "run_bad.ss").write_text("X = 1\n# error\n")
    script = tmp_path / "script.py"
    script.write_text("import run_bad\n")
    r = invoke(run.command, str(script))
    assert r.exit_code == 1
    assert "error[E0201]" in r.stderr and "Traceback" not in r.stderr


def test_run_script_exceptions_show_the_scripts_traceback(tmp_path, fake):
    script = tmp_path / "boom.py"
    script.write_text("x = 1\nraise ValueError('boom')\n")
    r = invoke(run.command, str(script))
    assert r.exit_code == 1
    assert r.stderr.startswith("Traceback (most recent call last):\n")
    assert 'boom.py", line 2' in r.stderr and "ValueError: boom" in r.stderr
    assert "runpy" not in r.stderr and "click" not in r.stderr


def test_run_script_exit_code(tmp_path, fake):
    script = tmp_path / "exits.py"
    script.write_text("import sys\nsys.exit(4)\n")
    assert invoke(run.command, str(script)).exit_code == 4


def test_run_a_ss_files_main(tmp_path, fake):
    (tmp_path / "prog.py").write_text("raise RuntimeError('the .py must not run')\n")
    (tmp_path / "prog.ss").write_text("import sys\ndef main():\n    print('main', sys.argv)\n")
    r = invoke(run.command, str(tmp_path / "prog.ss"), "a", "b")
    assert r.exit_code == 0, r.output
    assert r.stdout == f"main ['{tmp_path / 'prog.ss'}', 'a', 'b']\n"


def test_run_a_ss_file_without_main(tmp_path, fake):
    (tmp_path / "nomain.ss").write_text("X = 1\n")
    r = invoke(run.command, str(tmp_path / "nomain.ss"))
    assert r.exit_code == 2 and "no fn main()" in r.stderr


def test_run_missing_file(tmp_path, fake):
    assert invoke(run.command, str(tmp_path / "nope.py")).exit_code == 2


def test_built_module_tracebacks_show_the_ss_file(tmp_path):
    """A real build: the written file runs its code under the .ss file's name."""
    import subprocess
    import sys

    (tmp_path / "model.ss").write_text("fn f(x: [n]) -> [n]:\n    y = x[5]\n    return x\n")
    r = subprocess.run([sys.executable, "-m", "shapescript_cli", "build", "model.ss"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    script = "import torch, model\nmodel.f(torch.zeros(3))\n"
    r = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    # An index out of range is a ShapeError at the .ss line (not torch's IndexError).
    assert "ShapeError: model.ss:2:9: index 5 is out of bounds" in r.stderr
    assert 'model.ss", line 2, in _unchecked_f' in r.stderr
    assert "y = x[5]" in r.stderr
