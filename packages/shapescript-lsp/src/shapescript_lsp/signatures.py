"""Signature help: the signature of the call the cursor is in, with its parameters'
types and the one being written highlighted; for a declared function (the file's, an
imported one, the prelude's) its declaration and ``##`` doc, for a built-in form the
typed signature and doc line the core gives it. A constructor's help shows inside its
brackets (``zeros[b n``: the shape) and its fill value's parentheses (``full[n](``)."""

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
    """A call still open before the cursor, or a constructor's brackets or fill value."""

    callee: str
    args: str  # its arguments' text so far
    commas: int  # top-level commas among them
    piped: bool  # ``x |> f(…)``: ``x`` is the first argument
    # ``call``; for a constructor, ``shape`` (inside ``zeros[…]``) or ``fill`` (inside
    # ``full[n](…)``, a dtype between them or not: ``full[n] i32(…)``)
    part: str = "call"


@dataclass
class _Open:
    """A bracket still open, while the text before the cursor is read."""

    char: str  # ``(`` or ``[``
    at: int
    ctor: str | None = None  # the ``[`` of a constructor's shape: the constructor
    group: bool = False  # a ``(`` inside a constructor's shape: an axis group, not a call
    fill: str | None = None  # the ``(`` of a constructor's fill value: the constructor
    commas: int = 0


# A constructor's name right before its ``[`` (not an attribute: ``m.zeros[…]``).
_CTOR_NAME = re.compile(r"(?<![\w.])([^\W\d]\w*)\s*$")
# Between a constructor's ``]`` and its fill's ``(``: nothing or a dtype, on one line.
_FILL_GAP = re.compile(r"[ \t]*(?:([^\W\d]\w*)[ \t]*)?")


def _is_constructor(name: str) -> bool:
    b = api.builtin_doc(name)
    return b is not None and b.form == "constructor"


def _opened(before: str, i: int, stack: list[_Open],
            closed_ctor: tuple[int, str] | None) -> _Open:
    """The bracket ``before[i]`` opens: in a constructor's shape a ``(`` is a group; a
    ``[`` right after a constructor's name is its shape; a ``(`` right after a
    constructor's ``]`` (or its dtype) is its fill value."""
    c = before[i]
    top = stack[-1] if stack else None
    frame = _Open(c, i)
    if top is not None and (top.ctor is not None or top.group):
        frame.group = c == "("
    elif c == "[":
        m = _CTOR_NAME.search(before, max(0, i - 40), i)  # a name is short: look back a little
        if m is not None and _is_constructor(m.group(1)):
            frame.ctor = m.group(1)
    elif closed_ctor is not None:
        gap = _FILL_GAP.fullmatch(before, closed_ctor[0], i)
        if gap is not None and (gap.group(1) is None or gap.group(1) in api.vocab.DTYPES):
            frame.fill = closed_ctor[1]
    return frame


def open_call(before: str) -> _Call | None:
    """The innermost call whose ``(`` is still open in ``before``, or constructor whose
    ``[`` or fill's ``(`` is, skipping brackets closed before the cursor, indexing and
    types' brackets, and parenthesised groups."""
    stack: list[_Open] = []
    closed_ctor: tuple[int, str] | None = None  # the end of the last shape closed, its constructor
    for i, c in enumerate(before):
        if c in "([":
            stack.append(_opened(before, i, stack, closed_ctor))
        elif c in ")]":
            if stack:
                frame = stack.pop()
                if frame.ctor is not None:
                    closed_ctor = (i + 1, frame.ctor)
        elif c == "," and stack:
            stack[-1].commas += 1
    for frame in reversed(stack):
        args = before[frame.at + 1:]
        if frame.ctor is not None:
            return _Call(frame.ctor, args, 0, False, "shape")
        if frame.fill is not None:
            return _Call(frame.fill, args, frame.commas, False, "fill")
        if frame.char != "(" or frame.group:
            continue  # indexing, a type, an axis group: look further out
        m = re.search(r"([^\W\d]\w*)\s*$", before[:frame.at])
        if m is None:  # a parenthesised group, not a call: look further out
            continue
        piped = bool(re.search(r"\|>\s*$", before[:m.start()]))
        return _Call(m.group(1), args, frame.commas, piped)
    return None


def axis_index(shape: str) -> int:
    """Which axis of a shape the text ``shape`` (its brackets' text up to the cursor)
    is writing, from 0: an axis ends where two factors meet with no operator between
    them (``n+1`` and ``2 * n`` are one axis each, a group ``(h d)`` one factor), and a
    space after a whole axis starts the next.

    >>> axis_index("b n"), axis_index("b n "), axis_index("n + "), axis_index("n (h d")
    (1, 2, 0, 1)
    """
    axis, depth, after_factor = 0, 0, False
    for tok in re.findall(r"\.\.\.|\?\s*\w+|[\w.]+|[()]|[^\s\w()]", shape):
        if tok == "(":
            if depth == 0 and after_factor:
                axis += 1
            depth += 1
            after_factor = False
        elif tok == ")":
            depth = max(depth - 1, 0)
            after_factor = depth == 0
        elif depth:
            continue
        elif tok == "..." or tok[0] == "?" or tok[0].isalnum() or tok[0] == "_":
            if after_factor:
                axis += 1
            after_factor = True
        else:  # an operator joins the factors on either side into one axis
            after_factor = False
    if after_factor and depth == 0 and shape[-1:].isspace():
        axis += 1
    return axis


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
    kw = re.search(r"(?:^|,)\s*([^\W\d]\w*)\s*=(?![=>])[^=,]*$", call.args)
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


def _offsets(label: str, params: list[str], at: int | None = None) -> list[tuple[int, int]] | None:
    """Each parameter's place in the signature's label, so editors underline it: found
    in order, from ``at`` (else just after the label's first ``(``)."""
    out = []
    at = label.find("(") + 1 if at is None else at
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
    if call.part != "call":
        return _constructor_help(call)
    cm = doc.known
    sig = cm.env.fn(call.callee) if cm is not None else None
    if sig is not None:
        label, params, text = _fn_params(doc, sig)
    else:
        b = api.builtin_doc(call.callee)
        if b is None or "(" not in b.signature:
            return None
        label, params = b.signature, list(b.params)
        text = _builtin_text(b)
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


def _builtin_text(b: api.BuiltinDoc) -> str:
    """A built-in's documentation under its signature: its doc line, then an example."""
    return f"{b.doc}\n\n*built-in* · `{b.call}`"


def _constructor_help(call: _Call) -> lsp.SignatureHelp | None:
    """A constructor's signature (``full[shape](value: number) -> [shape]``): its shape's
    parameters, each word in its brackets (``eye[n n]``: one per axis, the one being
    written active), then its fill value's."""
    b = api.builtin_doc(call.callee)
    if b is None:
        return None
    label = b.signature
    lb = label.find("[")
    rb = label.find("]", lb)
    if lb < 0 or rb < 0:
        return None
    offsets = [(lb + 1 + m.start(), lb + 1 + m.end())
               for m in re.finditer(r"\S+", label[lb + 1:rb])]
    fill = list(b.params)
    if call.part == "fill":
        if not fill:
            return None  # no fill value to help with: the checker says so
        active = len(offsets) + min(call.commas, len(fill) - 1)
    else:
        active = min(axis_index(call.args), max(len(offsets) - 1, 0))
    fill_offsets = _offsets(label, fill, at=rb)
    if fill_offsets is None:
        return None
    offsets += fill_offsets
    info = lsp.SignatureInformation(
        label=label,
        documentation=lsp.MarkupContent(lsp.MarkupKind.Markdown, _builtin_text(b)),
        parameters=[lsp.ParameterInformation(label=o) for o in offsets])
    return lsp.SignatureHelp(signatures=[info], active_signature=0, active_parameter=active)
