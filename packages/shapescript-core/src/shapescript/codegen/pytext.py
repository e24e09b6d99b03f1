"""Text from a source as generated Python: the one way it gets there.

Whatever a program or its file brings (a file name, a doc comment, a string, a type as
written, a name) reaches generated code only through these functions: as a literal
Python reads back as the same value (``literal``), as a comment that stays on its line
(``comment``), or as a name that is checked to be one (``identifier``, ``attribute``).
A file whose name holds triple quotes and a statement, or a newline, is then text in a
literal or a comment, never a statement. Every generator (modules, standalone builds,
export modules, Hugging Face modeling files) uses them, through ``shapescript.api``
outside the core.
"""

from __future__ import annotations

import keyword
import math
from typing import Any

__all__ = ["attribute", "brace_text", "comment", "docstring", "fstring", "identifier",
           "is_identifier", "keyword_arg", "literal", "name_from"]


def literal(value: Any) -> str:
    """``value`` (a str, number, bool, None, or a tuple, list or dict of them) as a Python
    expression giving it back: ``repr`` but for the floats it doesn't write as literals
    (``inf`` and ``nan`` are names, which a module's own names could shadow).

    >>> literal("ab"), literal(float("inf")), literal((1, -float("inf")))
    ("'ab'", '1e999', '(1, -1e999)')
    """
    if value is None or isinstance(value, (bool, int, str, bytes)):
        return repr(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "(1e999 * 0)"
        if math.isinf(value):
            return "1e999" if value > 0 else "-1e999"
        return repr(value)
    if isinstance(value, tuple):
        items = [literal(v) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no Python literal for a {type(value).__name__}")


def docstring(text: str) -> str:
    """``text`` as a docstring: triple-quoted where that reads it back unchanged (lines
    of printable text without quotes or backslashes that could end or change it), else
    ``literal``."""
    plain = all(ch.isprintable() or ch == "\n" for ch in text)
    if plain and '"""' not in text and "\\" not in text and not text.endswith('"'):
        return '"""' + text + '"""'
    return literal(text)


def _one_line(text: str) -> str:
    # Python ends a comment at \n, \r and \r\n only, but a NUL or a lone surrogate makes
    # the file unreadable: everything that isn't printable is escaped.
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def comment(text: str) -> str:
    """``text`` as one line of Python comment (``# …``): a line break or any other
    character that isn't printable is written as its escape, so nothing after it can
    become code.

    >>> comment('from a\\nimport os')
    '# from a\\\\nimport os'
    """
    return "# " + _one_line(text)


def fstring(text: str) -> str:
    """``text``, with ``{python}`` holes (the generator's own code) and ``{{``/``}}`` for
    braces, as a Python literal: an f-string when it has holes. The text around the holes
    must come from ``brace_text``."""
    import re

    if re.search(r"(?<!\{)\{(?!\{)", text):
        return "f" + repr(text)
    return repr(text.replace("{{", "{").replace("}}", "}"))


def brace_text(text: str) -> str:
    """Source text to put in an ``fstring``'s text: its braces doubled."""
    return text.replace("{", "{{").replace("}", "}}")


def is_identifier(name: str) -> bool:
    """Whether ``name`` may be written as a Python name: an ASCII identifier (so that
    Python's NFKC normalisation can't make two names one) that isn't a keyword."""
    return name.isascii() and name.isidentifier() and not keyword.iskeyword(name)


def identifier(name: str) -> str:
    """``name``, checked to be a Python name; a generator that writes something else
    has a bug, so it is an internal error, never code."""
    if not is_identifier(name):
        raise AssertionError(f"not a Python name in generated code: {name!r}")
    return name


def attribute(obj: str, name: str) -> str:
    """The Python of attribute ``name`` of ``obj``: ``obj.name``, or ``getattr`` where
    ``name`` isn't a name Python can write after a dot (``torch.lambda``).

    >>> attribute("m", "w"), attribute("_ss_torch", "lambda")
    ('m.w', "getattr(_ss_torch, 'lambda')")
    """
    if is_identifier(name):
        return f"{obj}.{name}"
    return f"getattr({obj}, {literal(name)})"


def keyword_arg(name: str, value: str) -> str:
    """A call's keyword argument: ``name=value``, or ``**{'name': value}`` where
    ``name`` can't be written before ``=`` (a model's field named ``lambda``)."""
    if is_identifier(name):
        return f"{name}={value}"
    return f"**{{{literal(name)}: {value}}}"


def name_from(text: str) -> str:
    """A Python name made from ``text`` (a file's stem): each character that can't be in
    an ASCII name is ``_``, and a name that would start with a digit or be a keyword
    gets a ``_`` in front.

    >>> name_from("blocks"), name_from("2-layer"), name_from("módulo")
    ('blocks', '_2_layer', 'm_dulo')
    """
    out = "".join(ch if ch.isascii() and (ch.isalnum() or ch == "_") else "_" for ch in text)
    return out if is_identifier(out) else "_" + out


# The names ``shapescript.api`` gives them, for the plugins' generators.
py_literal = literal
py_comment = comment
py_docstring = docstring
py_identifier = identifier
py_attribute = attribute
py_name_from = name_from
