"""``shapescript run FILE.ss --dim NAME=N``: the program runs with the file's dims set from
the command line, checked again for them; a bad ``--dim`` is an error of the command."""

from __future__ import annotations

import subprocess
import sys

SRC = """dim D = 8
dim H = 2
dim Dh = D / H

fn heads(x: [n D]) -> [n H Dh] = rearrange(x, n (h d) -> n h d, h=H)

fn main():
    print(D, Dh, heads(zeros[3 D]))
"""


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "shapescript_cli", "run", *args],
                          capture_output=True, text=True, cwd=cwd)


def test_the_program_runs_with_the_dims_given(tmp_path):
    (tmp_path / "m.ss").write_text(SRC.replace("heads(zeros[3 D])", "0"), encoding="utf-8")
    plain = run("m.ss", cwd=tmp_path)
    assert plain.returncode == 0 and plain.stdout.split() == ["8", "4", "0"], plain.stderr
    p = run("--dim", "D=12", "--dim", "H=3", "m.ss", cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.split() == ["12", "4", "0"], p.stderr


def test_the_functions_take_the_new_sizes(tmp_path):
    src = SRC.replace("print(D, Dh, heads(zeros[3 D]))",
                      "h = heads(zeros[3 D])\n    print(D, Dh, H)")
    (tmp_path / "m.ss").write_text(src, encoding="utf-8")
    p = run("--dim", "D=12", "--dim", "H=3", "m.ss", cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.split() == ["12", "4", "3"], p.stderr


def test_sizes_the_code_cannot_take_exit_2_with_their_diagnostics(tmp_path):
    (tmp_path / "m.ss").write_text(SRC, encoding="utf-8")
    p = run("--dim", "H=3", "m.ss", cwd=tmp_path)
    assert p.returncode == 2, p.stderr
    assert "error[E0604]" in p.stderr and "m.ss:5:" in p.stderr
    assert "doesn't check with --dim H=3 (it does with its own dims)" in p.stderr
    assert p.stdout == ""


def test_bad_dim_options_exit_2(tmp_path):
    (tmp_path / "m.ss").write_text(SRC, encoding="utf-8")
    (tmp_path / "s.py").write_text("print('ran')\n", encoding="utf-8")
    cases = [(("--dim", "Q=3", "m.ss"), "no dim of that name: `Q` (its dims: D, H, Dh)"),
             (("--dim", "D=x", "m.ss"), "`D=x` is not NAME=N with N a positive integer"),
             (("--dim", "D=0", "m.ss"), "is not NAME=N"),
             (("--dim", "D", "m.ss"), "is not NAME=N"),
             (("--dim", "D=4", "s.py"), "sets the dims of a .ss file")]
    for args, msg in cases:
        p = run(*args, cwd=tmp_path)
        assert p.returncode == 2 and msg in p.stderr, (args, p.stderr)
        assert "Traceback" not in p.stderr and p.stdout == ""


def test_a_file_with_errors_of_its_own_exits_1(tmp_path):
    (tmp_path / "m.ss").write_text(SRC + "fn bad(x: [n D]) -> [n] = y\n", encoding="utf-8")
    p = run("--dim", "D=12", "--dim", "H=3", "m.ss", cwd=tmp_path)
    assert p.returncode == 1 and "error[E0201]" in p.stderr and "--dim" not in p.stderr


def test_ranks_get_the_dims_too():
    from shapescript_cli.commands import _launch

    assert _launch.worker_args(None, None, "m.ss", ("1",), ("D=12",)) == [
        "-m", "shapescript_cli", "run", "--dim", "D=12", "m.ss", "1"]
