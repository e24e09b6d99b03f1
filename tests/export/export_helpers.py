"""Helpers of the export tests: export a function, save it, load it back with
torch alone, and compare it with the compiled function."""

from __future__ import annotations

import os
import subprocess
import sys
import types
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = Path(__file__).resolve().parent / "programs"
EXAMPLES = ROOT / "examples"

warnings.filterwarnings("ignore", message=".*did not appear in the graph.*")


def compiled(path: Path) -> types.ModuleType:
    """The ``.ss`` file compiled as ordinary (checked) Python, for comparisons."""
    from shapescript.compiler import compile_file

    out = compile_file(str(path))
    assert out.python is not None, out.diagnostics
    mod = types.ModuleType(path.stem)
    exec(compile(out.python, str(path), "exec"), mod.__dict__)
    return mod


def export_and_load(path: Path, fn: str, folder: Path, **options):
    """``shapescript.export`` to ``folder/fn.pt2``; the ExportedProgram and the module
    ``torch.export.load`` gives back."""
    import shapescript
    import torch

    out = folder / f"{fn}.pt2"
    ep = shapescript.export(str(path), fn, str(out), **options)
    assert out.is_file()
    return ep, torch.export.load(str(out)).module()


def hops(ep) -> set[str]:
    """The names of the higher-order operations in the program's graphs (cond, …)."""
    names = set()
    for gm in ep.graph_module.modules():
        for node in getattr(gm, "graph", types.SimpleNamespace(nodes=())).nodes:
            if node.op == "call_function" and type(node.target).__name__ != "OpOverload":
                name = getattr(node.target, "__name__", None) or getattr(node.target, "name", "")
                names.add(str(name))
    return names


def aten_ops(ep) -> list[str]:
    """Every aten operation in the program's graphs, by name (``aten.cond`` excluded)."""
    out = []
    for gm in ep.graph_module.modules():
        for node in getattr(gm, "graph", types.SimpleNamespace(nodes=())).nodes:
            if node.op == "call_function" and type(node.target).__name__ == "OpOverload":
                out.append(str(node.target))
    return out


def shapescript_cmd(*args: str, env: dict | None = None, cwd: Path | None = None,
                    timeout: int = 300) -> subprocess.CompletedProcess:
    """Runs the ``shapescript`` command in a fresh interpreter."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "shapescript_cli", *args], cwd=cwd,
                          env=full_env, capture_output=True, text=True, timeout=timeout)
