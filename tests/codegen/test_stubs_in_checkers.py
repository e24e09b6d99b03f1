"""The stubs in the checkers Python users run: Pyrefly (with its shape-aware torch stubs)
checks calls of the spotter's and the llama's functions against the pyrefly-style stubs
and infers their results' shapes; basedpyright reads the jaxtyping-style stubs without an
error and reveals their types. Both are development dependencies (pyproject.toml)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = [ROOT / "examples/spotter/spotter.ss", ROOT / "examples/llama.ss"]


def _tool(name: str) -> str:
    path = Path(sysconfig.get_path("scripts")) / name
    assert path.exists(), f"{name} is a development dependency: uv sync installs it"
    return str(path)


def write_stubs(folder: Path, style: str) -> None:
    done = subprocess.run([sys.executable, "-m", "shapescript_cli", "stubs", *map(str, EXAMPLES),
                           "-o", str(folder), "--style", style],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def pyrefly_project(tmp_path_factory) -> Path:
    """A folder with the pyrefly-style stubs of the spotter and the llama, and a Pyrefly
    configuration that resolves torch (and the shape stubs) in this environment."""
    folder = tmp_path_factory.mktemp("pyrefly")
    write_stubs(folder, "pyrefly")
    (folder / "pyrefly.toml").write_text(f"python-interpreter-path = {sys.executable!r}\n")
    return folder


def pyrefly(folder: Path, name: str, code: str) -> list[dict]:
    """Pyrefly's errors for the caller ``code`` (written as ``name``), as JSON records."""
    (folder / name).write_text(textwrap.dedent(code))
    done = subprocess.run([_tool("pyrefly"), "check", "--output-format", "json", name],
                          cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    return [e for e in json.loads(done.stdout)["errors"] if e["severity"] == "error"]


def test_pyrefly_flags_a_wrong_image_size_for_the_spotter(pyrefly_project):
    errors = pyrefly(pyrefly_project, "spotter_wrong.py", """
        import torch
        import spotter

        img = torch.zeros(8, 1, 28, 28)
        tokens = spotter.patchify(img)
    """)
    # `patchify(img: [b 1 S S])`: the message names the dim `S` (its variable `_S`).
    [error] = errors
    assert error["name"] == "bad-specialization" and error["line"] == 6
    assert error["description"] == (
        "`Int[28]` is not assignable to upper bound `Literal[16]` of type variable `_S`")


def test_pyrefly_infers_the_spotters_shapes_from_its_dims(pyrefly_project):
    errors = pyrefly(pyrefly_project, "spotter_right.py", """
        from typing import assert_type

        import torch
        from torch import Tensor

        import spotter

        img = torch.zeros(8, 1, spotter.S, spotter.S)
        w_e = torch.zeros(spotter.P * spotter.P, spotter.D)
        assert_type(spotter.patchify(img), Tensor[[8, 16, 16]])
        assert_type(spotter.embed(img, w_e), Tensor[[8, 16, 32]])
        assert_type(spotter.thumbnail(img), Tensor[[8, 1, 7, 7]])
        assert_type(spotter.max_pool2d(img, 5, 3), Tensor[[8, 1, 4, 4]])
        assert_type(spotter.nonblank(img), Tensor[[int, 1, 16, 16]])
    """)
    assert errors == []


def test_pyrefly_lets_a_size_it_knows_only_as_int_through_a_dim(pyrefly_project):
    # The dim's bound accepts an `int` size, and the result keeps the dim's value.
    errors = pyrefly(pyrefly_project, "spotter_int.py", """
        from typing import assert_type

        import torch
        from torch import Tensor

        import spotter

        def tokens(side: int) -> None:
            img = torch.zeros(8, 1, side, side)
            assert_type(spotter.patchify(img), Tensor[[8, 16, 16]])
    """)
    assert errors == []


def test_pyrefly_checks_a_generic_batch_against_a_derived_dim(pyrefly_project):
    # `attention(m, x: [b n D], c: [b n Dh] f32, …)` with `dim Dh = D / H` (16): the batch
    # and the sequence are bound by `x`, and `c` must agree with them and with Dh.
    wrong = pyrefly(pyrefly_project, "llama_wrong.py", """
        import torch
        import llama

        m = llama.Llama.init()
        x = torch.zeros(2, 10, 64)
        c = torch.zeros(2, 10, 32)
        y = llama.attention(m, x, c, c, 0)
    """)
    [error] = wrong
    assert (error["name"], error["line"]) == ("bad-specialization", 8)
    assert error["description"] == (
        "`Int[32]` is not assignable to upper bound `Literal[16]` of type variable `_Dh`")
    right = pyrefly(pyrefly_project, "llama_right.py", """
        from typing import assert_type

        import torch
        from torch import Tensor

        import llama

        m = llama.Llama.init()
        ids = torch.zeros(2, 10, dtype=torch.long)
        c, s = llama.rotation(ids)
        assert_type(c, Tensor[[2, 10, 16]])
        x = torch.zeros(2, 10, llama.D)
        assert_type(llama.attention(m, x, c, s, 0), Tensor[[2, 10, 64]])
        assert_type(llama.forward(m, ids, ids), Tensor[[2, 10, 64]])
        assert_type(m.wk, Tensor[[2, 32, 64]])
    """)
    assert right == []


def test_pyrefly_reads_the_stubs_themselves_without_an_error(pyrefly_project):
    # Checked as project files under this Python (3.11): no syntax newer than it.
    errors = pyrefly(pyrefly_project, "empty.py", "")
    done = subprocess.run([_tool("pyrefly"), "check", "--output-format", "json",
                           "spotter.pyi", "llama.pyi"], cwd=pyrefly_project,
                          capture_output=True, text=True, timeout=300)
    errors += [e for e in json.loads(done.stdout)["errors"] if e["severity"] == "error"]
    assert errors == []


def pyright_environment(folder: Path) -> Path:
    """The interpreter of a bare environment holding torch and jaxtyping (links to this
    one's), as a pyright user's is: without the shape-aware torch stubs this environment
    has for Pyrefly, which pyright would read instead of torch's own types."""
    import importlib.util
    import venv

    venv.create(folder, with_pip=False)
    [site] = list(folder.glob("lib/python3.*/site-packages")) or [folder / "Lib/site-packages"]
    for name in ("torch", "jaxtyping", "wadler_lindig", "typing_extensions"):
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        path = Path(spec.origin)
        path = path.parent if path.name == "__init__.py" else path
        (site / path.name).symlink_to(path)
    return folder / "bin" / "python"


@pytest.mark.slow  # basedpyright starts node: some seconds
def test_basedpyright_reads_the_jaxtyping_stubs_and_reveals_their_types(tmp_path):
    write_stubs(tmp_path, "jaxtyping")
    # A `.ss` module has no `.py` beside its stub: that is no mistake of the caller.
    (tmp_path / "pyrightconfig.json").write_text(json.dumps({
        "typeCheckingMode": "standard", "reportMissingModuleSource": False}))
    (tmp_path / "caller.py").write_text(textwrap.dedent("""
        import torch
        import llama
        import spotter

        img = torch.zeros(8, 1, 16, 16, dtype=torch.uint8)
        reveal_type(spotter.D)
        reveal_type(spotter.predict_saved)
        reveal_type(spotter.predict_saved(img))
        reveal_type(llama.Llama.init().wq)
        reveal_type(llama.rotation)
        reveal_type(llama.eps)
        spotter.predict_saved(img, 3)
    """))
    python = pyright_environment(tmp_path / "env")
    done = subprocess.run([_tool("basedpyright"), "--outputjson", "--pythonpath", str(python),
                           "caller.py", "spotter.pyi", "llama.pyi"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NO_COLOR": "1"})
    report = json.loads(done.stdout)
    errors = [(d["file"].rsplit("/", 1)[-1], d["range"]["start"]["line"] + 1, d["message"])
              for d in report["generalDiagnostics"] if d["severity"] == "error"]
    # The stubs read clean; the one error is the caller's extra argument.
    assert errors == [("caller.py", 13, "Expected 1 positional argument")], errors
    revealed = [d["message"] for d in report["generalDiagnostics"]
                if d["severity"] == "information"]
    assert revealed == [
        'Type of "spotter.D" is "Literal[32]"',
        'Type of "spotter.predict_saved" is "(img: Tensor) -> Tensor"',
        'Type of "spotter.predict_saved(img)" is "Tensor"',
        'Type of "llama.Llama.init().wq" is "Tensor"',
        'Type of "llama.rotation" is "(pos: Tensor) -> tuple[Tensor, Tensor]"',
        'Type of "llama.eps" is "float"',
    ]
