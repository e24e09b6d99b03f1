"""Signature help: the signature of the call the cursor is in, with its parameters'
types and the one being written highlighted; for a declared function (the file's, an
imported one, the prelude's) its declaration and ``##`` doc, for a built-in form the
typed signature and doc line the core gives it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lsprotocol import types as lsp

from shapescript import api
from shapescript_lsp.completion import text_before
from shapescript_lsp.documents import Document
from shapescript_lsp.hover import signature_text


@dataclass
class _Call:
    """A call still open before the cursor."""

    callee: str
    args: str  # its arguments' text so far
    commas: int  # top-level commas among them
    piped: bool  # ``x |> f(…)``: ``x`` is the first argument


def open_call(before: str) -> _Call | None:
    """The innermost call whose ``(`` is still open in ``before``, skipping calls closed
    before the cursor and bracket groups inside the arguments."""
    depth = 0
    commas = 0
    for i in range(len(before) - 1, -1, -1):
        c = before[i]
        if c in ")]":
            depth += 1
        elif c == "[":
            depth = max(depth - 1, 0)
        elif c == "(":
            if depth:
                depth -= 1
                continue
            m = re.search(r"([A-Za-z_]\w*)\s*$", before[:i])
            if m is None:  # a parenthesised group, not a call: look further out
                commas = 0
                continue
            piped = bool(re.search(r"\|>\s*$", before[:m.start()]))
            return _Call(m.group(1), before[i + 1:], commas, piped)
        elif c == "," and depth == 0:
            commas += 1
    return None


def _param_name(label: str) -> str:
    """A parameter's name from its label (``over: Axis[A]`` → ``over``)."""
    return label.split(":", 1)[0].split("=", 1)[0].strip().rstrip("…")


def _joined(params: list[str]) -> tuple[list[str], int | None]:
    """The parameters with a bare ``…`` joined to the one before it: ``pattern: names *
    names -> part, …`` (unpack's parts, one per comma) is one parameter; and the index of
    that parameter, if any."""
    out: list[str] = []
    parts = None
    for p in params:
        if p.strip() == "…" and out:
            out[-1] = f"{out[-1]}, {p.strip()}"
            parts = len(out) - 1
        else:
            out.append(p)
    return out, parts


def _active(call: _Call, names: list[str], variadic: int | None,
            parts: int | None = None) -> int:
    """The parameter being written: by its keyword when one is being written, after a
    pattern's ``:`` (einsum) or ``->`` (unpack's parts, comma-separated) the pattern,
    else by position (a variadic parameter takes every argument from its place on)."""
    kw = re.search(r"(?:^|,)\s*([A-Za-z_]\w*)\s*=(?![=>])[^=,]*$", call.args)
    if kw is not None:
        if kw.group(1) in names:
            return names.index(kw.group(1))
        if variadic is not None:  # `p=P` in a pattern's sizes
            return variadic
    if "pattern" in names and ":" in call.args and variadic is not None:
        return names.index("pattern")
    if parts is not None and "->" in call.args:
        return parts
    k = call.commas + (1 if call.piped else 0)
    if variadic is not None and k > variadic:
        k = variadic
    return min(k, max(len(names) - 1, 0))


def _offsets(label: str, params: list[str]) -> list[tuple[int, int]] | None:
    """Each parameter's place in the signature's label, so editors underline it."""
    out = []
    at = label.find("(") + 1
    for p in params:
        k = label.find(p, at)
        if k < 0:
            return None
        out.append((k, k + len(p)))
        at = k + len(p)
    return out


def _fn_params(doc: Document, sig: Any) -> tuple[str, list[str], str | None]:
    """A declared function's label, its parameters as the label writes them, its doc."""
    label = signature_text(doc, sig)
    params = []
    at = label.find("(") + 1
    for p in sig.params:
        k = label.find(p.name, at)
        if k < 0:
            params = [f"{q.name}: {q.written}" if q.written else q.name for q in sig.params]
            break
        end = _param_end(label, k)
        params.append(label[k:end].strip())
        at = end
    return label, params, sig.decl.doc


def _param_end(label: str, k: int) -> int:
    depth = 0
    for i in range(k, len(label)):
        c = label[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            if depth == 0:
                return i
            depth -= 1
        elif c == "," and depth == 0:
            return i
    return len(label)


def signature_help(doc: Document, pos: lsp.Position) -> lsp.SignatureHelp | None:
    """The signature of the call the cursor is in, by the text before the cursor (so it
    works while the call is half typed), with the argument under the cursor active."""
    call = open_call(text_before(doc, pos))
    if call is None:
        return None
    cm = doc.known
    sig = cm.env.fn(call.callee) if cm is not None else None
    if sig is not None:
        label, params, text = _fn_params(doc, sig)
    else:
        b = api.builtin_doc(call.callee)
        if b is None or "(" not in b.signature:
            return None
        label, params = b.signature, list(b.params)
        text = f"{b.doc}\n\n*built-in* · `{b.call}`"
    params, parts = _joined(params)
    names = [_param_name(p) for p in params]
    variadic = next((i for i, p in enumerate(params) if _param_name(p) + "…" in p), None)
    offsets = _offsets(label, params)
    info = lsp.SignatureInformation(
        label=label,
        documentation=lsp.MarkupContent(lsp.MarkupKind.Markdown, text) if text else None,
        parameters=[lsp.ParameterInformation(label=o) for o in offsets] if offsets
        else [lsp.ParameterInformation(label=p) for p in params])
    return lsp.SignatureHelp(signatures=[info], active_signature=0,
                             active_parameter=_active(call, names, variadic, parts))
