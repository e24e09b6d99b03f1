"""``shapescript.export_gguf``: find the architecture by computing, then write the file."""

from __future__ import annotations

import os
from typing import Any

from shapescript_gguf.errors import CommandError
from shapescript_gguf.search import Match, search
from shapescript_gguf.source import Source, load_source
from shapescript_gguf.writer import placeholder_vocabulary, read_tokenizer, write_gguf

__all__ = ["DEFAULT_CONTEXT", "export_gguf"]

# llama's context length when neither --max-len nor the positions' Index[P] gives one.
DEFAULT_CONTEXT = 4096


def _check_options(arch: str | None, dtype: str, tokenizer: str | None,
                   max_len: int | None) -> None:
    from shapescript_gguf.targets import NAMES

    if arch is not None and arch not in NAMES:
        raise CommandError(f"arch must be one of {', '.join(NAMES)}, not {arch!r}")
    from shapescript_export.model_export import DTYPES

    if dtype not in DTYPES:
        raise CommandError(f"dtype must be float32, bfloat16 or float16, not {dtype!r}")
    if tokenizer is not None and not os.path.isdir(tokenizer):
        raise CommandError(f"--tokenizer {tokenizer}: not a folder")
    if max_len is not None and (isinstance(max_len, bool) or not isinstance(max_len, int)
                                or max_len < 1):
        raise CommandError(f"max_len must be a whole number ≥ 1, not {max_len!r}")


def _check_output(path: str, output: str) -> None:
    """The output must be a file that can be made, and not the source."""
    from shapescript import api

    output = os.fspath(output)
    folder = os.path.dirname(os.path.abspath(output))
    if os.path.isdir(output):
        raise CommandError(f"--gguf {output}: is a folder")
    if not os.path.isdir(folder):
        raise CommandError(f"--gguf {output}: no such folder {folder}")
    if api.same_file(path, output):
        raise CommandError(f"--gguf {output}: is the source file; choose another path")


def _weights(source: Source, weights: str | None, seed: int, allow_nonfinite: bool) -> Any:
    """The model whose weights are written: from the checkpoint, or new from the seed
    (the model exporters' shared ``make_weights``, which refuses NaN and infinities
    unless ``allow_nonfinite``)."""
    from shapescript_export.model_export import ModelExportError, make_weights

    try:
        return make_weights(source.model, weights=weights, seed=seed,
                            allow_nonfinite=allow_nonfinite)
    except ModelExportError as err:
        raise CommandError(str(err)) from None


def _finite_in(values: dict, dtype: str) -> None:
    """The matrices as written in ``dtype`` (1-D tensors stay f32) must stay finite."""
    from shapescript_export.model_export import ModelExportError, check_finite, torch_dtype

    if dtype == "float32":
        return
    target = torch_dtype(dtype)
    try:
        check_finite({n: v.to(target) for n, v in values.items() if v.dim() >= 2}, dtype=dtype)
    except ModelExportError as err:
        raise CommandError(str(err)) from None


def _context(match: Match, source: Source, values: dict, max_len: int | None) -> int:
    """The file's context length. With learned positions (gpt2) it is the rows of the
    position table (cut to ``max_len`` when that is smaller); otherwise ``max_len``, else
    P of the positions' ``Index[P]``, else 4096; with a sliding window the architecture
    doesn't run, at most the window (``Match.context_cap``)."""
    from shapescript_gguf.targets import TARGETS

    if TARGETS[match.arch].computation.positions == "learned":
        field = match.pairing["position_embd"]
        rows = values[field].shape[0]
        if max_len is None:
            return rows
        if max_len > rows:
            raise CommandError(f"--max-len {max_len}: gpt2's context is at most the {rows} rows "
                             f"of its position table ({field})")
        values[field] = values[field][:max_len]
        return max_len
    if match.context_cap is not None:
        cap = match.context_cap
        if max_len is not None and max_len > cap:
            raise CommandError(f"--max-len {max_len}: llama.cpp's {match.arch} runs no sliding "
                               f"window, so the file is exact only within the model's window "
                               f"of {cap} positions: at most {cap}")
        return min(max_len or source.positions or cap, cap)
    return max_len or source.positions or DEFAULT_CONTEXT


def export_gguf(path: str, output: str, *, fn: str = "forward", arch: str | None = None,
                weights: str | None = None, seed: int = 0, dtype: str = "float32",
                tokenizer: str | None = None, max_len: int | None = None,
                allow_nonfinite: bool = False) -> str:
    """Write the language model of the ShapeScript file ``path`` as a GGUF file that
    llama.cpp runs, and return the architecture's name (``"llama"``, ``"qwen2"``, …).

    The forward function ``fn`` must take the model, the token ids ``[b n] Index[V]`` and
    optionally their positions, and end with the output layer (the serving rules). Which
    architecture it is (``arch`` limits the search to one), and which field is which of
    the architecture's tensors, is found by computing the function and llama.cpp's
    formulation of each architecture in f64 on random weights; the first pairing whose
    logits agree to 1e-8 of their size is written.

    The weights are the first model of the function's type in the checkpoint
    ``weights`` (one ``save`` wrote), or new ones from ``seed``. Matrices are written in
    ``dtype`` (``float32``, ``bfloat16``, ``float16``), 1-D tensors in f32.
    ``tokenizer`` is a folder with a Hugging Face byte-level BPE ``tokenizer.json``;
    without one the vocabulary is ``<|0|>`` … ``<|V-1|>``. ``max_len`` sets the context
    length. The file is written atomically: when anything fails, no file is left. A
    weight that is NaN or infinite (or becomes so in ``dtype``) is refused, naming it,
    unless ``allow_nonfinite``.

    Raises ``ValueError`` saying why, for each architecture, when none computes what the
    function computes (and for bad options), ``ShapeScriptError`` when the file has
    errors.
    """
    _check_options(arch, dtype, tokenizer, max_len)
    from shapescript import api

    _check_output(path, output)

    source = load_source(path, fn)
    match = search(source, arch)
    model = _weights(source, weights, seed, allow_nonfinite)
    values = {name: getattr(model, name).detach() for name in match.pairing.values()}
    context = _context(match, source, values, max_len)
    if not allow_nonfinite:
        _finite_in(values, dtype)
    vocab = (read_tokenizer(tokenizer, source.vocab) if tokenizer is not None
             else placeholder_vocabulary(source.vocab))
    name = os.path.splitext(os.path.basename(path))[0]
    api.atomic_write_with(output, lambda tmp: write_gguf(
        tmp, match, values, dtype=dtype, vocab=vocab, context_length=context, name=name))
    return match.arch
