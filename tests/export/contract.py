"""The exporters' contract, as a property: an export that succeeds (exit 0) wrote output
that loads and runs — ``torch.export.load`` for ``.pt2``, transformers for ``--hf``,
llama.cpp for ``--gguf``. ``check(path, target, out)`` exports one program and checks
it; an export that refuses the program (an error with an exit code, never an internal
error) is no counterexample. Used by ``test_export_contract.py`` (a few programs) and
``benchmarks/export_contract.py`` (many).
"""

from __future__ import annotations

import os
from typing import Any

TARGETS = ("pt2", "hf", "gguf")


def programs(seeds: range, origins: tuple[str, ...]) -> list[tuple[int, bytes]]:
    """The fuzzer's clean programs among ``seeds`` made from files named in ``origins``
    (mutants of them, and generated programs when ``origins`` holds ``""``)."""
    import fuzzer

    out = []
    for seed in seeds:
        case = fuzzer.program(seed)
        name = case.origin.name if case.kind == "mutant" else ""
        if name in origins and fuzzer.run_case(case).kind == "clean":
            out.append((seed, case.data))
    return out


# Mutations that often leave a program checking: a number, a name, a token repeated.
_GENTLE = ("_m_number", "_m_replace_name", "_m_duplicate_tokens", "_m_swap_tokens")


def mutants(files: tuple[str, ...], seeds: range) -> list[tuple[int, bytes]]:
    """Clean mutants of ``files`` (paths), one small mutation each, by seed."""
    import random

    import fuzzer

    out = []
    for seed in seeds:
        rng = random.Random(seed)
        path = files[seed % len(files)]
        data = open(path, "rb").read()
        mutated = getattr(fuzzer, rng.choice(_GENTLE))(data, rng, data)
        if mutated != data and fuzzer.run(mutated, path, search=[]).kind == "clean":
            out.append((seed, mutated))
    return out


def _functions(path: str) -> list[str]:
    from shapescript import api

    program = api.check_file(path)
    env = program.main.env
    return [name for name, sig in env.fns.items() if not sig.is_extern]


def check(path: str, target: str, out: str) -> str:
    """Exports every function of ``path`` to ``target``: ``"refused"`` when none exports,
    ``"loaded"`` when each that did loads and runs; raises AssertionError for a
    counterexample (an internal error, or output that doesn't load or run)."""
    result = "refused"
    for fn in _functions(path):
        code, err = _export(path, fn, target, out)
        assert code != 3, f"{target} of `{fn}`: internal error\n{err}"
        if code != 0:
            continue
        try:
            _load_and_run(path, fn, target, out)
        except Exception as e:  # noqa: BLE001 - the counterexample
            raise AssertionError(f"{target} of `{fn}` exited 0 but its output doesn't load "
                                 f"and run: {type(e).__name__}: {e}\n{err}") from e
        result = "loaded"
    return result


def _export(path: str, fn: str, target: str, out: str) -> tuple[int, str]:
    """``shapescript export`` as a user runs it: its exit code and what it said."""
    from click.testing import CliRunner

    from shapescript_cli.main import main

    option = {"pt2": ["-o", out + ".pt2"], "hf": ["--hf", out, "--no-verify"],
              "gguf": ["--gguf", out + ".gguf"]}[target]
    r = CliRunner().invoke(main, ["export", path, "--fn", fn, *option],
                           prog_name="shapescript")
    return r.exit_code, r.output


def _load_and_run(path: str, fn: str, target: str, out: str) -> None:
    import torch

    from shapescript_export.model_export import example_inputs, load_model_source

    if target == "pt2":
        ep = torch.export.load(out + ".pt2")
        ep.module()(*_pt2_inputs(ep))
        return
    source = load_model_source(path, fn)
    args = example_inputs(source)
    if target == "hf":
        from transformers import AutoModel

        model = AutoModel.from_pretrained(out, trust_remote_code=True)
        with torch.no_grad():
            if "ShapeScriptForCausalLM" in open(os.path.join(out, "config.json")).read():
                from transformers import AutoModelForCausalLM

                lm = AutoModelForCausalLM.from_pretrained(out, trust_remote_code=True)
                lm(input_ids=args[0], use_cache=False)
            else:
                model(*args)
        return
    import llama_cpp

    llm = llama_cpp.Llama(model_path=out + ".gguf", n_ctx=32, n_batch=32, n_threads=2,
                          verbose=False)
    try:
        llm.eval([1, 2, 3])
    finally:
        llm.close()


def _pt2_inputs(ep: Any) -> list[Any]:
    """Inputs of the loaded program's shapes: those it was traced with (its example
    inputs' metadata), as new tensors."""
    import torch

    out = []
    for spec in ep.graph_signature.input_specs:
        if spec.kind.name != "USER_INPUT":
            continue
        meta = ep.graph.find_nodes(op="placeholder", target=spec.arg.name)[0].meta["val"]
        shape = [int(s) for s in meta.shape]
        if meta.dtype.is_floating_point:
            out.append(torch.randn(shape, dtype=meta.dtype))
        elif meta.dtype == torch.bool:
            out.append(torch.zeros(shape, dtype=torch.bool))
        else:
            out.append(torch.zeros(shape, dtype=meta.dtype))
    return out
