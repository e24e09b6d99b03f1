"""The error-code registry: every code once, with its title and its ``explain`` page.

Codes are ``E`` + two digits naming the area + a number. Each page
is a Markdown file ``explanations/<CODE>.md`` beside this module, read the first time
it is asked for, in this form::

    E0406                                 <- the code, alone on the first line

    Index out of bounds. ...              <- what it means

    ```ss                                 <- a program that triggers exactly this code
    fn last(pair: [2 n]) -> [n] = pair[2]
    ```

    Count from 0 ... ``pair[1]`` ...      <- the fix

    ```ss fixed                           <- optional: the program, fixed
    fn last(pair: [2 n]) -> [n] = pair[1]
    ```

A block fenced as ``ss file=NAME.ss`` is another file the example needs beside it (an
imported module). E0000 has no program. Adding a code: a line in ``_TABLE`` and a page;
``tests/test_codes.py`` fails if either is missing.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from importlib import resources

__all__ = ["CODES", "Code", "Page", "explain", "normalize_code", "page"]

_PAGES = "explanations"
_CODE_RE = re.compile(r"E\d{4}")


@dataclass(frozen=True, slots=True)
class Page:
    """An explain page, split into its parts."""

    text: str
    program: str | None
    """The example that triggers the code (None for E0000)."""
    fixed: str | None
    """The example, fixed, when the page shows it."""
    files: tuple[tuple[str, str], ...]
    """Other files the example needs, as (file name, text), written beside it."""


@dataclass(frozen=True, slots=True)
class Code:
    """A registered diagnostic code.

    >>> CODES["E0413"].title
    'the shape of a Python value is unknown'
    """

    code: str
    title: str
    severity: str = "error"

    @property
    def explain(self) -> str:
        """The explain page, as Markdown (read on first use)."""
        return page(self.code).text

    @property
    def program(self) -> str | None:
        """The page's example program."""
        return page(self.code).program


# (code, title[, severity]): the one place a code is registered. Titles are lowercase,
# as messages are.
_TABLE: tuple[tuple[str, ...], ...] = (
    ("E0000", "internal error"),
    # E01 syntax
    ("E0101", "unexpected token"),
    ("E0102", "wrong indentation"),
    ("E0103", "unclosed bracket or string"),
    ("E0104", "a number stuck to a name outside a size"),
    ("E0105", "`2 n` beside `2n` in one signature", "warning"),
    ("E0106", "not a pipe stage"),
    ("E0107", "nested too deeply"),
    ("E0108", "a number literal out of range"),
    # E02 names, imports and declarations
    ("E0201", "unknown name"),
    ("E0202", "defined twice"),
    ("E0203", "a name that shadows a dim, a generic, a built-in or a reserved name"),
    ("E0204", "module not found"),
    ("E0205", "a name that isn't public in its module"),
    # E03 sizes and dims
    ("E0301", "dims that form a cycle"),
    ("E0302", "a size that isn't a whole number ≥ 0"),
    ("E0303", "a generic size that no parameter determines"),
    ("E0304", "not a size expression"),
    ("E0305", "a size too large to compute with"),
    ("E0306", "a const used as a size"),
    ("E0307", "a const whose value isn't known before the program runs"),
    ("E0308", "a fraction where a size is expected"),
    # E04 types and shapes
    ("E0401", "sizes not provably equal"),
    ("E0402", "ranks differ"),
    ("E0403", "unknown axis label"),
    ("E0404", "dtypes differ"),
    ("E0405", "an ambiguous or unevenly repeated axis label"),
    ("E0406", "index out of bounds"),
    ("E0407", "the alias has a dtype or domain already"),
    ("E0408", "tuple elements of different types"),
    ("E0409", "an operation that needs the rank of `...`"),
    ("E0410", "a tensor where a host value is needed, or the reverse"),
    ("E0411", "an operation that needs a float dtype"),
    ("E0413", "the shape of a Python value is unknown"),
    ("E0414", "an axis of another role, equal only in value"),
    ("E0415", "every one of the arguments a call needs one of is `none`"),
    ("E0416", "`with` naming a parameter that isn't optional"),
    ("E0417", "a pattern's name differing from a dim only by case", "warning"),
    ("E0418", "a group merged in another order than it was split in"),
    # E05 calls and signatures
    ("E0501", "wrong number of arguments"),
    ("E0502", "unknown or repeated keyword argument"),
    ("E0503", "not callable, or a function used as a value"),
    ("E0504", "`Size`, `Axis` or `Axes` in a `fn`"),
    # E06 patterns
    ("E0601", "pattern syntax"),
    ("E0602", "a pattern name on one side only, or an unknown `reduce` operation"),
    ("E0603", "the pattern's rank isn't the input's"),
    ("E0604", "a pattern group that can't be solved exactly"),
    ("E0605", "a dim or generic in a pattern that doesn't fit its axis"),
    ("E0606", "an `einsum` with more than 52 axis names"),
    # E07 domains, conversions and `as`
    ("E0701", "domain too wide"),
    ("E0702", "no such conversion"),
    ("E0703", "`as` changing the dtype"),
    ("E0704", "`over=` not the class axis"),
    ("E0705", "class axis absent or repeated"),
    ("E0706", "a new size name in `as`"),
    # E08 control flow
    ("E0801", "missing return"),
    ("E0802", "a name out of scope after a loop or branch"),
    ("E0803", "a loop changing a variable's type"),
    ("E0804", "not a condition"),
    ("E0805", "`for` over a tensor"),
    # E09 models
    ("E0901", "unknown model field"),
    ("E0902", "a param type that isn't static"),
    ("E0903", "a field given another type"),
    # E10 Python and extern fn
    ("E1001", "axis label absent"),
    ("E1002", "axis label repeated"),
    ("E1003", "`Size` argument not static"),
    ("E1004", "an extern fn's target that isn't a dotted Python path"),
    # E11 training built-ins
    ("E1101", "`value_and_grad`'s function doesn't take the model first and return `[]`"),
    ("E1102", "`report` value not a number"),
    # E17 export
    ("E1701", "Python in an exported function"),
    ("E1702", "extern fn outside torch, called by an exported function"),
    ("E1703", "as on a Python value in an exported function"),
    ("E1704", "value or operation with no torch-only lowering in an exported function"),
    ("E1705", "parameter of an export fn that isn't a tensor with a shape"),
    ("E1706", "return inside an if on a tensor in an exported function"),
    ("E1707", "`map` over a generic size in an exported function"),
    ("E1708", "division by a number the checker knows is 0"),
    ("E1709", "more than one `...` in a type"),
    # E19 suppressions
    ("E1901", "unused suppression", "warning"),
    # E33 serving engines
    ("E3301", "forward function's parameters not the model, token ids and positions"),
    ("E3302", "forward function doesn't end with the output layer"),
    ("E3303", "token ids not used once, by the embedding"),
    ("E3304", "operation across positions other than causal attention"),
    ("E3305", "attention the engine can't run"),
    ("E3306", "forward function doesn't take the model first"),
    ("E3307", "keys and values repeated in a way the engine can't group"),
    ("E3308", "sliding window the target can't run"),
    ("E3309", "tensor-parallel degree that doesn't divide a split axis"),
    ("E3310", "tensor parallelism on layers that aren't modules"),
    # E36 `shapescript port` (about the Python model being ported, not a .ss program)
    ("E3601", "model torch.export can't trace"),
    ("E3602", "operation no built-in or typed extern fn can say"),
    ("E3603", "port that doesn't give what the source gives"),
    ("E3604", "transformers model of a layout the port doesn't recognise"),
    ("E3605", "source the port can't load"),
)

CODES: dict[str, Code] = {row[0]: Code(*row) for row in _TABLE}
"""Every registered code, in order."""


def normalize_code(text: str) -> str:
    """``E0413`` from ``e0413``, ``0413`` or ``413``; raises ``ValueError`` for anything
    that can't be a code.

    >>> normalize_code("e413")
    'E0413'
    """
    t = text.strip().upper()
    if t.startswith("E"):
        t = t[1:]
    if not t.isdigit() or len(t) > 4:
        raise ValueError(f"`{text}` is not an error code (codes look like E0413)")
    return "E" + t.zfill(4)


def explain(code: str) -> str:
    """The explain page of ``code`` (``E0413``, ``e0413`` or ``0413``), as Markdown.

    Raises ``KeyError`` for a code that isn't registered, ``ValueError`` for text that
    isn't a code at all.

    >>> explain("E0406").splitlines()[0]
    'E0406'
    """
    c = normalize_code(code)
    if c not in CODES:
        raise KeyError(c)
    return page(c).text


@functools.cache
def page(code: str) -> Page:
    """The page of a registered ``code``, read and split on first use."""
    if code not in CODES:
        raise KeyError(code)
    text = resources.files("shapescript").joinpath(_PAGES, f"{code}.md").read_text("utf-8")
    return _split(text)


_FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)


def _split(text: str) -> Page:
    program = fixed = None
    files: list[tuple[str, str]] = []
    for m in _FENCE.finditer(text):
        info = m["info"].split()
        if not info or info[0] != "ss":
            continue
        body = m["body"]
        if len(info) == 1:
            program = program if program is not None else body
        elif info[1] == "fixed":
            fixed = fixed if fixed is not None else body
        elif info[1].startswith("file="):
            files.append((info[1].removeprefix("file="), body))
    return Page(text, program, fixed, tuple(files))
