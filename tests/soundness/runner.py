"""Runs a generated program: check, compile, call ``main`` on random sizes, compare with
the oracle. ``outcome`` names what happened; ``GOOD`` are the outcomes soundness allows."""

from __future__ import annotations

import types
from typing import Any

import torch

from gen import CheckMustFail, Choices, Program, inputs

GOOD = ("ok", "check_failed_as_predicted")


def compile_program(prog: Program, path: str) -> tuple[types.ModuleType | None, str]:
    from shapescript.compiler import compile_source

    src = prog.source()
    with open(path, "w", encoding="utf-8") as f:
        f.write(src)
    out = compile_source(src, path)
    if out.python is None:
        return None, "; ".join(f"{d.line}:{d.column} {d.code} {d.message}" for d in out.diagnostics)
    mod = types.ModuleType("gen_prog")
    mod.__file__ = path
    exec(compile(out.python, path, "exec"), mod.__dict__)
    return mod, ""


def run(prog: Program, ch: Choices, path: str, tries: int = 3) -> tuple[str, str]:
    """``(outcome, detail)`` of compiling ``prog`` and calling it on ``tries`` random sets
    of sizes (each generic 1 to 4, so 1 is common)."""
    from shapescript import DomainError, ShapeError

    try:
        mod, why = compile_program(prog, path)
    except Exception as exc:  # noqa: BLE001 - the compiler crashing is an outcome
        return "compiler_crash", f"{type(exc).__name__}: {exc}"
    if mod is None:
        return "rejected", why
    outcome = "ok"
    for _ in range(tries):
        args, oracle = inputs(prog, ch)
        try:
            want = prog.main.ev(oracle)
            must_fail = None
        except CheckMustFail as exc:
            want, must_fail = None, str(exc)
        if prog.model:
            args = [mod.W(**a) if isinstance(a, dict) else a for a in args]
        try:
            got = mod.main(*args)
        except (ShapeError, DomainError) as exc:
            if must_fail is None:
                return "unexpected_shape_error", f"{type(exc).__name__}: {exc}"
            if not str(exc).startswith(path.rsplit("/", 1)[-1] + ":"):
                return "error_without_location", str(exc)
            outcome = "check_failed_as_predicted"
            continue
        except Exception as exc:  # noqa: BLE001 - any other error is unsound
            return "runtime_crash", f"{type(exc).__name__}: {exc}"
        if must_fail is not None:
            return "missed_check", must_fail
        env = oracle["__env__"]
        shape = tuple(_size(a, env) for a in prog.main.axes)
        if tuple(got.shape) != shape:
            return "wrong_shape", f"got {tuple(got.shape)}, declared {shape}"
        try:
            torch.testing.assert_close(got.detach(), want.detach(), rtol=1e-4, atol=1e-4, equal_nan=True)
        except AssertionError as exc:
            return "wrong_value", str(exc).splitlines()[0]
    return outcome, ""


def _size(label: str, env: dict[str, Any]) -> int:
    from gen import size_of

    return size_of(label, env)
