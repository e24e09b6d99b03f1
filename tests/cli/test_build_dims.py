"""``shapescript build --dim NAME=N``: the file's dims set from the command line, and
checked again for them."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from shapescript_cli.commands import build

SRC = """dim D = 8
dim H = 2
dim Dh = D / H
fn heads(x: [n D]) -> [n H Dh] = rearrange(x, n (h d) -> n h d, h=H)
"""


def test_dims_are_set_and_the_module_uses_them(tmp_path):
    src = tmp_path / "m.ss"
    src.write_text(SRC, encoding="utf-8")
    out = tmp_path / "m.py"
    r = CliRunner().invoke(build.command, [str(src), "-o", str(out), "--dim", "D=12", "--dim", "H=3"])
    assert r.exit_code == 0, r.output
    code = ("import sys, torch; sys.path.insert(0, sys.argv[1]); import m; "
            "print(m.D, m.Dh, tuple(m.heads(torch.zeros(5, 12)).shape))")
    p = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert p.stdout.split() == ["12", "4", "(5,", "3,", "4)"], p.stderr


def test_sizes_the_file_cannot_take_are_its_diagnostics(tmp_path):
    src = tmp_path / "m.ss"
    src.write_text(SRC, encoding="utf-8")
    out = tmp_path / "m.py"
    r = CliRunner().invoke(build.command, [str(src), "-o", str(out), "--dim", "H=3"])
    assert r.exit_code == 1 and "E0604" in r.output and "m.ss:4" in r.output
    assert not out.exists()


def test_bad_dim_options_are_usage_errors(tmp_path):
    src = tmp_path / "m.ss"
    src.write_text(SRC, encoding="utf-8")
    for arg, msg in [("Q=3", "no dim of that name: `Q`"), ("D=0", "not NAME=N"),
                     ("D", "not NAME=N"), ("Dh=x", "not NAME=N")]:
        r = CliRunner().invoke(build.command, [str(src), "--dim", arg])
        assert r.exit_code == 2 and msg in r.output, (arg, r.output)
    assert not (tmp_path / "m.py").exists()
