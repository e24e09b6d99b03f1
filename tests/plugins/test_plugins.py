"""The plugin boundary: export targets and check profiles come from entry points; a
third-party target reaches ``shapescript export``; a known plugin that isn't installed
gets its install hint; ``shapescript.export*`` resolve the same way."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import shapescript
import shapescript.api
import shapescript.plugins
from shapescript_cli.main import main

TOY = Path(__file__).resolve().parent / "toy"
PROGRAM = "dim D = 4\n\nexport fn scale(x: [n D], w: [D]) -> [n D] = x * w\n"


def shapescript_cmd(*args: str, env: dict[str, str] | None = None):
    exe = Path(sys.executable).with_name("shapescript")
    return subprocess.run([str(exe), *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


@pytest.fixture
def program(tmp_path: Path) -> Path:
    src = tmp_path / "model.ss"
    src.write_text(PROGRAM)
    return src


def test_a_third_party_target_reaches_export_with_its_own_flag(program, tmp_path):
    out = tmp_path / "names.txt"
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(TOY), os.environ.get("PYTHONPATH")]))}
    r = shapescript_cmd("export", str(program), "--toy", str(out), "--shout", env=env)
    assert r.returncode == 0, r.stderr
    assert out.read_text() == "X\nW\n"
    r = shapescript_cmd("export", "--help", env=env)
    assert "--toy OUT" in r.stdout and "--shout" in r.stdout and "--aoti" in r.stdout
    # Another target's option with --toy is an error of the command.
    r = shapescript_cmd("export", str(program), "--toy", str(out), "--aoti", env=env)
    assert r.returncode == 2 and "--aoti is not an option of --toy" in r.stderr


def test_without_the_toy_plugin_its_flag_is_unknown(program, tmp_path):
    r = shapescript_cmd("export", str(program), "--toy", str(tmp_path / "o.txt"))
    assert r.returncode == 2 and "No such option '--toy'" in r.stderr


def _only(monkeypatch, **groups: list[str]) -> None:
    """Installed entry points limited to the names given per group."""
    real = shapescript.plugins.entry_points

    def limited(group: str):
        keep = groups.get(group.rsplit(".", 1)[-1], [])
        return {n: ep for n, ep in real(group).items() if n in keep}

    monkeypatch.setattr(shapescript.plugins, "entry_points", limited)
    monkeypatch.setattr(shapescript.api, "entry_points", limited, raising=False)


@pytest.mark.parametrize("flag,extra", [("--hf", "hf"), ("--gguf", "gguf")])
def test_a_known_target_that_is_missing_names_its_extra(flag, extra, monkeypatch, program):
    _only(monkeypatch, export_targets=["pt2"])
    r = CliRunner().invoke(main, ["export", str(program), flag, "out"], prog_name="shapescript")
    assert r.exit_code == 2
    assert r.stderr == f"error: `{flag}` needs pip install 'shapescript[{extra}]'\n"
    assert r.exception is None or isinstance(r.exception, SystemExit)


@pytest.mark.parametrize("args,option", [
    (["-o", "probe.pt2"], "-o"),            # the tutorial's own command
    (["--aoti"], "--aoti"),
    (["--output=probe.pt2"], "--output"),
    (["-oprobe.pt2"], "-o"),
    (["--emit-python", "probe.py"], "--emit-python"),
    (["--weights", "w.safetensors"], "--weights"),
])
def test_every_option_of_the_missing_export_target_names_its_extra(args, option, monkeypatch,
                                                                   program):
    _only(monkeypatch)
    r = CliRunner().invoke(main, ["export", str(program), *args], prog_name="shapescript")
    assert r.exit_code == 2
    assert r.stderr == f"error: `{option}` needs pip install 'shapescript[export]'\n"


@pytest.mark.parametrize("args,option,extra", [
    (["--vllm"], "--vllm", "hf"),
    (["--no-verify"], "--no-verify", "hf"),
    (["--arch", "llama"], "--arch", "gguf"),
    # The target's flag decides, wherever it is.
    (["--tokenizer", "tok", "--gguf", "out.gguf"], "--gguf", "gguf"),
])
def test_an_option_of_a_missing_serving_target_names_its_extra(args, option, extra,
                                                               monkeypatch, program):
    _only(monkeypatch, export_targets=["pt2"])
    r = CliRunner().invoke(main, ["export", str(program), *args], prog_name="shapescript")
    assert r.exit_code == 2
    assert r.stderr == f"error: `{option}` needs pip install 'shapescript[{extra}]'\n"


@pytest.mark.parametrize("flag,extra", [("--vllm", "hf"), ("--gguf", "gguf")])
def test_a_known_check_profile_that_is_missing_names_its_extra(flag, extra, monkeypatch,
                                                                program):
    _only(monkeypatch)
    r = CliRunner().invoke(main, ["check", flag, str(program)], prog_name="shapescript")
    assert r.exit_code == 2
    assert r.stderr == f"error: `{flag}` needs pip install 'shapescript[{extra}]'\n"


def test_export_with_no_target_at_all_names_the_export_extra(monkeypatch, program):
    _only(monkeypatch)
    r = CliRunner().invoke(main, ["export", str(program)], prog_name="shapescript")
    assert r.exit_code == 2
    assert r.stderr == "error: shapescript export needs pip install 'shapescript[export]'\n"


@pytest.mark.parametrize("name,extra", [("export", "export"), ("export_hf", "hf"),
                                        ("export_gguf", "gguf")])
def test_python_api_resolves_through_the_targets(name, extra, monkeypatch):
    target = shapescript.plugins.load_entry_point(shapescript.plugins.EXPORT_TARGETS,
                                                  shapescript.plugins.KNOWN_TARGETS[
                                                      {"export": "pt2", "export_hf": "hf",
                                                       "export_gguf": "gguf"}[name]].name)
    assert getattr(shapescript, name) is target.api or \
        getattr(shapescript, name).__qualname__ == target.api.__qualname__
    _only(monkeypatch)
    with pytest.raises(ImportError, match=rf"shapescript\.{name} needs pip install "
                                          rf"'shapescript\[{extra}\]'"):
        getattr(shapescript, name)


def test_every_installed_target_follows_the_protocol():
    from shapescript.api import ExportTarget

    eps = shapescript.plugins.entry_points(shapescript.plugins.EXPORT_TARGETS)
    assert {"pt2", "hf", "gguf"} <= set(eps)
    for name, ep in eps.items():
        target = ep.load()
        assert isinstance(target, ExportTarget), name
        assert target.name == name
        known = shapescript.plugins.KNOWN_TARGETS.get(name)
        if known is not None:
            assert (target.flag, target.extra) == (known.flag, known.extra)
            # The table's options are the target's: each gets the hint when it's missing.
            assert set(known.options) == {s for opt in target.options()
                                          for s in (*opt.opts, *opt.secondary_opts)}, name
            assert len(set(known.options)) == len(known.options), name
        for opt in target.options():
            assert opt.name and opt.opts
