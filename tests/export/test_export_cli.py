"""``shapescript export`` (book ch. 17, DECISIONS §28): its errors and exit codes, the
Python that traces, ``--emit-python`` without ShapeScript, ``--aoti``."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner
from export_helpers import EXAMPLES, PROGRAMS, compiled, shapescript_cmd

from shapescript_cli import main as cli_main

E17 = PROGRAMS / "e17"


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(cli_main.main, ["export", *args], env=env, prog_name="shapescript")


# -- errors before tracing (in this process) ------------------------------------------------

@pytest.mark.parametrize("code", ["E1701", "E1702", "E1703", "E1704", "E1705", "E1706"])
def test_export_rule_errors_exit_1_with_the_rendered_diagnostic(code, tmp_path):
    src = tmp_path / f"{code.lower()}.ss"
    src.write_text((E17 / f"{code.lower()}.ss").read_text())
    r = run(str(src))
    assert r.exit_code == 1, r.output
    assert f"error[{code}]" in r.stderr
    assert f" --> {src}:" in r.stderr
    assert "run `shapescript explain E17" in r.stderr
    assert list(tmp_path.iterdir()) == [src]          # nothing written


def test_unmarked_function_named_with_fn_is_checked_as_exported(tmp_path):
    src = tmp_path / "py.ss"
    src.write_text("import python torch\n\nfn f(x: [n]) -> [n]:\n"
                   "    return (x |> torch.tanh) as [n]\n")
    r = run(str(src), "--fn", "f")
    assert r.exit_code == 1
    assert "error[E1701]" in r.stderr and "reached from the exported function `f`" in r.stderr


def test_a_file_with_errors_exits_1(tmp_path):
    src = tmp_path / "bad.ss"
    src.write_text("export fn f(x: [n]) -> [n]:\n    return nope\n")
    r = run(str(src))
    assert r.exit_code == 1 and "error[E0201]" in r.stderr


def test_two_export_fns_without_fn_exit_2_naming_both(program_copy):
    src = program_copy("codec.ss")
    r = run(str(src))
    assert r.exit_code == 2
    assert r.stderr.startswith("error: ")
    assert "`encode` and `decode`" in r.stderr and "--fn" in r.stderr
    assert not src.with_suffix(".pt2").exists()


def test_missing_function_exits_2(program_copy):
    r = run(str(program_copy("codec.ss")), "--fn", "nope")
    assert r.exit_code == 2 and "`nope` is not a function" in r.stderr


def test_missing_file_and_bad_options_exit_2(tmp_path):
    assert run(str(tmp_path / "none.ss")).exit_code == 2
    assert run(str(PROGRAMS / "codec.ss"), "--checks", "sometimes").exit_code == 2
    r = run(str(PROGRAMS / "codec.ss"), "--fn", "encode", "--devices", "gpu")
    assert r.exit_code == 2 and "not a device" in r.output


def test_without_the_extra_export_says_which_to_install(monkeypatch, tmp_path):
    import shapescript.api
    import shapescript.plugins

    monkeypatch.setattr(shapescript.plugins, "entry_points", lambda group: {})
    monkeypatch.setattr(shapescript.api, "entry_points", lambda group: {}, raising=False)
    src = tmp_path / "model.ss"
    src.write_text("export fn f(x: [n]) -> [n] = x\n")
    r = CliRunner().invoke(cli_main.main, ["export", str(src)], prog_name="shapescript")
    assert r.exit_code == 2
    assert r.stderr == "error: shapescript export needs pip install 'shapescript[export]'\n"


# -- tracing in another Python ------------------------------------------------------------------

def _wrapper(tmp_path: Path, name: str, python: str, marker: Path, flags: str = "") -> Path:
    """A script that records that it ran, then runs ``python``."""
    w = tmp_path / name
    w.write_text(f"#!/bin/sh\necho ran >> '{marker}'\nexec '{python}' {flags} \"$@\"\n")
    w.chmod(w.stat().st_mode | stat.S_IEXEC)
    return w


def test_fn_writes_the_pt2_next_to_the_file_with_python(program_copy, tmp_path):
    src = program_copy("codec.ss")
    marker = tmp_path / "marker"
    py = _wrapper(tmp_path, "py.sh", sys.executable, marker)
    r = shapescript_cmd("export", str(src), "--fn", "encode", "--python", str(py))
    assert r.returncode == 0, r.stderr
    assert marker.read_text() == "ran\n"
    program = torch.export.load(str(src.with_suffix(".pt2"))).module()
    mod = compiled(src)
    for b, n in [(1, 1), (2, 3), (4, 1)]:
        x = torch.randn(b, n, 8)
        torch.testing.assert_close(program(x), mod.encode(x))


def test_error_from_torch_exits_1_with_its_message_and_location(program_copy, tmp_path):
    src = program_copy("pin.ss")
    marker = tmp_path / "marker"
    py = _wrapper(tmp_path, "py.sh", sys.executable, marker)
    r = run(str(src), "-o", str(tmp_path / "out.pt2"), env={"SHAPESCRIPT_PYTHON": str(py)})
    assert r.exit_code == 1, r.stderr
    assert marker.exists()                                  # $SHAPESCRIPT_PYTHON traced
    assert r.stderr.startswith("error: torch.export could not export `pin`: ")
    assert "ShapeError: pin.ss:7:12: expected [5 D], but axis 0 is 2" in r.stderr
    assert f" --> {src}:7:5" in r.stderr
    assert "7 |     return y as [5 D]" in r.stderr
    assert not (tmp_path / "out.pt2").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.pt2")]


def test_a_python_without_torch_exits_2(program_copy, tmp_path):
    src = program_copy("codec.ss")
    py = _wrapper(tmp_path, "bare.sh", sys.executable, tmp_path / "m", flags="-I -S")
    r = run(str(src), "--fn", "encode", "--python", str(py))
    assert r.exit_code == 2, r.stderr
    assert "can't import torch" in r.stderr and "--python" in r.stderr
    assert not src.with_suffix(".pt2").exists()


def test_aoti_without_a_cxx_compiler_is_a_clear_error(program_copy, tmp_path):
    src = program_copy("codec.ss")
    empty = tmp_path / "bin"
    empty.mkdir()
    r = run(str(src), "--fn", "decode", "--aoti", env={"PATH": str(empty), "CXX": ""})
    assert r.exit_code == 1, r.stderr
    assert "needs a C++ compiler" in r.stderr
    assert not src.with_suffix(".pt2").exists()


# -- the emitted module, without ShapeScript ---------------------------------------------------

def _isolated_python(script: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Runs ``script`` in a Python that sees the standard library and torch's
    site-packages folder but not its ``.pth`` files, so not ShapeScript (installed
    editable through those)."""
    site = str(Path(torch.__file__).resolve().parents[1])
    boot = (f"import sys; sys.path[:0] = [{site!r}]; sys.argv = sys.argv[1:]; "
            "import runpy; runpy.run_path(sys.argv[0], run_name='__main__')")
    return subprocess.run([sys.executable, "-I", "-S", "-c", boot, script, *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def test_emitted_module_runs_with_torch_and_einops_only(tmp_path):
    module = tmp_path / "attn_export.py"
    r = run(str(EXAMPLES / "attention.ss"), "--emit-python", str(module))
    assert r.exit_code == 0, r.output
    text = module.read_text()
    assert "\nimport shapescript" not in text and "from shapescript import" not in text
    probe = tmp_path / "probe.py"
    probe.write_text("import importlib.util, sys\n"
                     "print(importlib.util.find_spec('shapescript'), "
                     "importlib.util.find_spec('shapescript_export'))\n")
    p = _isolated_python(str(probe), cwd=tmp_path)
    assert p.stdout.strip() == "None None", p.stderr           # really no ShapeScript there
    out = tmp_path / "attn.pt2"
    p = _isolated_python(str(module), "-o", str(out), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    program = torch.export.load(str(out)).module()
    mod = compiled(EXAMPLES / "attention.ss")
    w_qkv, w_o = torch.randn(64, 192) / 8, torch.randn(64, 64) / 8
    for b, n in [(1, 1), (3, 4), (2, 7)]:
        x = torch.randn(b, n, 64)
        torch.testing.assert_close(program(x, w_qkv, w_o), mod.causal_attention(x, w_qkv, w_o))


# -- AOTInductor -------------------------------------------------------------------------------

def test_aoti_without_a_cxx_compiler_from_python(monkeypatch, tmp_path):
    import shapescript
    from shapescript_export import ExportError

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CXX", "")
    out = tmp_path / "codec.pt2"
    with pytest.raises(ExportError, match="needs a C\\+\\+ compiler"):
        shapescript.export(str(PROGRAMS / "codec.ss"), "decode", str(out), aoti=True)
    assert not out.exists()


@pytest.mark.slow
def test_aoti_package_loads_and_takes_other_sizes(tmp_path):
    import torch._inductor

    import shapescript

    out = tmp_path / "attn.pt2"
    shapescript.export(str(EXAMPLES / "attention.ss"), "causal_attention", str(out), aoti=True)
    runner = torch._inductor.aoti_load_package(str(out))
    mod = compiled(EXAMPLES / "attention.ss")
    w_qkv, w_o = torch.randn(64, 192) / 8, torch.randn(64, 64) / 8
    for b, n in [(1, 1), (2, 5), (4, 33)]:
        x = torch.randn(b, n, 64)
        torch.testing.assert_close(runner(x, w_qkv, w_o), mod.causal_attention(x, w_qkv, w_o),
                                   rtol=1e-4, atol=1e-4)
