"""``##`` doc comments: a scan of the source's lines, apart from the token stream.

A block of ``##`` lines documents the declaration or model field that starts on the next
code line (comment lines may come between); a block at the very top followed by a blank
line documents the module.
"""

from __future__ import annotations

import re

from shapescript.source import Span

__all__ = ["scan_docs"]

_LINE_RE = re.compile(r"\r\n|\n|\r")


def scan_docs(src: str, path: str) -> tuple[dict[int, str], str | None, tuple[Span, ...]]:
    """Find the ``##`` blocks.

    Returns the doc text by the line of the code line that follows each block (the parser
    attaches it to a declaration or a model field starting on that line), the module's
    doc (a block at the very top followed by a blank line) and every block's span.
    """
    if "##" not in src:
        return {}, None, ()
    if "\r" not in src:
        return _scan_docs_fast(src, path)
    docs: dict[int, str] = {}
    spans: list[Span] = []
    module_doc: str | None = None
    block: list[str] = []
    block_start = None  # (line, col, offset)
    block_end = None  # (line, end_col, offset)
    block_is_top = False
    seen_code = False
    offset = 0
    lineno = 0
    pos = 0
    n = len(src)
    while pos <= n:
        m = _LINE_RE.search(src, pos)
        if m is None:
            text = src[pos:]
            nxt = n + 1
            line_end = n
        else:
            text = src[pos:m.start()]
            nxt = m.end()
            line_end = m.start()
        lineno += 1
        offset = pos
        stripped = text.lstrip(" \t\f\v")
        if stripped.startswith("##"):
            body = stripped[2:]
            if body.startswith(" "):
                body = body[1:]
            if not block:
                lead = len(text) - len(stripped)
                block_start = (lineno, lead + 1, offset + lead)
                block_is_top = not seen_code
            block.append(body.rstrip())
            block_end = (lineno, len(text) + 1, line_end)
        elif not stripped:
            # A blank line ends a block: at the very top it documents the module,
            # elsewhere it documents nothing.
            if block:
                if block_is_top and module_doc is None:
                    module_doc = "\n".join(block)
                spans.append(_block_span(path, block_start, block_end))
                block = []
        elif stripped.startswith("#"):
            pass
        else:
            seen_code = True
            if block:
                docs[lineno] = "\n".join(block)
                spans.append(_block_span(path, block_start, block_end))
                block = []
        if m is None:
            break
        pos = nxt
    if block:
        if block_is_top and module_doc is None:
            module_doc = "\n".join(block)
        spans.append(_block_span(path, block_start, block_end))
    return docs, module_doc, tuple(spans)


_DOC_LINE_RE = re.compile(r"^([ \t\f\v]*)##(.*)$", re.MULTILINE)
_COMMENTS_BETWEEN_RE = re.compile(r"\n(?:[ \t\f\v]*#[^\n]*\n)*")
_BLANK_OR_COMMENTS_RE = re.compile(r"(?:[ \t\f\v]*(?:#[^\n]*)?\n)*[ \t\f\v]*(?:#[^\n]*)?\Z")


def _scan_docs_fast(src: str, path: str):
    """``scan_docs`` for sources whose lines end in ``\\n``: visits only the ``##`` lines."""
    docs: dict[int, str] = {}
    spans: list[Span] = []
    module_doc = None
    count = src.count
    line = 1
    counted = 0  # offset up to which newlines are counted into `line`
    block: list[str] = []
    top_possible = True
    b_line = b_col = b_off = 0
    e_line = e_col = e_off = 0
    for m in _DOC_LINE_RE.finditer(src):
        start = m.start()
        line += count("\n", counted, start)
        counted = start
        body = m.group(2)
        if body[:1] == " ":
            body = body[1:]
        if block and (line == e_line + 1 or _COMMENTS_BETWEEN_RE.fullmatch(src, e_off, start)):
            block.append(body.rstrip())
        else:
            if block:
                module_doc = _close_block(src, path, docs, spans, block, b_line, b_col, b_off,
                                          e_line, e_col, e_off, top_possible, module_doc)
                top_possible = False
            block = [body.rstrip()]
            lead = len(m.group(1))
            b_line, b_col, b_off = line, lead + 1, start + lead
            if top_possible:
                top_possible = _BLANK_OR_COMMENTS_RE.match(src, 0, start) is not None
        e_line, e_col, e_off = line, m.end() - start + 1, m.end()
    if block:
        module_doc = _close_block(src, path, docs, spans, block, b_line, b_col, b_off, e_line,
                                  e_col, e_off, top_possible, module_doc)
    return docs, module_doc, tuple(spans)


def _close_block(src, path, docs, spans, block, b_line, b_col, b_off, e_line, e_col, e_off,
                 top, module_doc):
    spans.append(Span(path, b_line, b_col, e_line, e_col, b_off, e_off))
    text = "\n".join(block)
    # What follows the block: skip comment lines; a blank line or the end of the file
    # ends it (the module's doc at the very top), a code line takes it.
    pos = e_off + 1
    line = e_line + 1
    n = len(src)
    while pos <= n:
        nl = src.find("\n", pos)
        end = n if nl < 0 else nl
        stripped = src[pos:end].strip(" \t\f\v")
        if not stripped:
            break
        if stripped[0] == "#":
            if stripped.startswith("##"):
                break  # another doc block (after a comment line)
            pos = end + 1
            line += 1
            continue
        docs[line] = text
        return module_doc
    if top and module_doc is None:
        return text
    return module_doc


def _block_span(path: str, start, end) -> Span:
    return Span(path, start[0], start[1], end[0], end[1], start[2], end[2])
