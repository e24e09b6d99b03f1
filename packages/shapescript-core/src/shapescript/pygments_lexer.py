"""ShapeScript for Pygments: ``pygmentize -l shapescript``, and ```` ```ss ```` blocks
coloured by MkDocs (``pymdownx.highlight``), nbconvert and anything else that asks
Pygments.

Pygments finds the lexer through the ``pygments.lexers`` entry point of
``shapescript-core`` (aliases ``shapescript`` and ``ss``). Pygments is not a dependency
of ShapeScript: this module is loaded by Pygments only, never by the compiler.

The lexer colours what the VS Code grammar (``editors/vscode``) colours, in the same
places: a test tokenizes the documentation's programs with both and compares their
classes (keywords, types, dims, numbers, strings, comments, operators). Inside a shape
(``[b n D]``), a constructor's brackets (``zeros[N D]``), an axis after ``over`` and an
einops pattern, a capitalised name is a dim (``Name.Constant``) and a lower-case one an
axis (``Name.Variable``). The words come from the compiler's own tables (its keywords,
dtypes, domains, constructors and pattern calls), so the two can't drift apart. A
character the language has no use for (``$``, ``{``, a backtick) is an ``Error`` token.
"""

from __future__ import annotations

import re
from typing import ClassVar

from pygments.lexer import RegexLexer, bygroups, include, this, using, words
from pygments.token import (
    Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Whitespace,
)

from shapescript.builtin_registry import CONSTRUCTOR_NAMES, PATTERN_NAMES
from shapescript.vocab import DOMAINS, DTYPE_CLASSES, DTYPES, HOST_DTYPE

__all__ = ["ShapeScriptLexer", "CONTROL", "DECLARATIONS", "TYPE_WORDS", "WORD_OPERATORS"]

CONTROL = ("return", "if", "elif", "else", "for", "in", "with")
WORD_OPERATORS = ("and", "or", "not", "as", "to")
DECLARATIONS = ("fn", "export", "extern", "dim", "const", "model", "param", "import",
                "python", "from", "devices")
CONSTANTS = ("true", "false", "none", "True", "False", "None")
# The dtypes and the host types a signature may name (`n: int`, `name: str`).
TYPE_WORDS = (*DTYPES, *DTYPE_CLASSES, *HOST_DTYPE, "str")
# The sizes and axes a parameter may be (`n: Size[n]`, `over: Axis[A]`).
SPECIAL_TYPES = ("Size", "Axis", "Axes")
MODES = ("Train",)

# Names are Python identifiers, so not ASCII only (`ß`, `Größe`); an axis is coloured as
# a dim when it starts with a capital of the Latin, Greek or Cyrillic alphabets.
_NAME = r"[^\W\d]\w*"
_DOTTED = r"[^\W\d][\w.]*"
_UPPER = "A-ZÀ-ÖØ-ÞΑ-ΩА-Я"
_SP = r"[ \t]"
# An einops pattern's side: names, numbers, `...` and parenthesised groups, on one line.
_SIDE = r"(?:[\w. \t]|\.\.\.|\((?:[\w. \t]|\.\.\.)*\))+"
_SIDE_COMMAS = r"(?:[\w. \t,]|\.\.\.|\((?:[\w. \t]|\.\.\.)*\))+"


class ShapeScriptLexer(RegexLexer):
    """ShapeScript (``.ss`` files)."""

    name = "ShapeScript"
    url = "https://github.com/shapescript/shapescript"
    aliases: ClassVar[list[str]] = ["shapescript", "ss"]
    filenames: ClassVar[list[str]] = ["*.ss"]
    mimetypes: ClassVar[list[str]] = ["text/x-shapescript"]
    flags = re.MULTILINE

    tokens: ClassVar[dict[str, list]] = {
        "root": [
            include("comments"),
            include("declarations"),
            include("expressions"),
        ],
        "comments": [
            (r"##.*?$", Comment.Special),
            (r"#.*?$", Comment.Single),
        ],
        # A declaration's head, at the start of a line (as the grammar's are).
        "declarations": [
            (rf"^({_SP}*)(devices)({_SP}+)({_NAME}(?:\[[0-9]+\])?)",
             bygroups(Whitespace, Keyword.Declaration, Whitespace, Keyword.Constant)),
            (rf"^(?:(export)({_SP}+)|(extern)({_SP}+))?(fn)({_SP}+)({_NAME})",
             bygroups(Keyword.Declaration, Whitespace, Keyword.Declaration, Whitespace,
                      Keyword.Declaration, Whitespace, Name.Function)),
            (rf"^(dim)({_SP}+)({_NAME})",
             bygroups(Keyword.Declaration, Whitespace, Name.Constant)),
            (rf"^(const)({_SP}+)({_NAME})",
             bygroups(Keyword.Declaration, Whitespace, Name.Variable)),
            (rf"^(model)({_SP}+)({_NAME})",
             bygroups(Keyword.Declaration, Whitespace, Name.Class)),
            (rf"^({_SP}+)(param)({_SP}+)({_NAME})",
             bygroups(Whitespace, Keyword.Declaration, Whitespace, Name.Variable)),
            (rf"^(import)({_SP}+)(python)({_SP}+)({_DOTTED})",
             bygroups(Keyword.Namespace, Whitespace, Keyword.Namespace, Whitespace,
                      Name.Namespace)),
            (rf"^(from)({_SP}+)({_DOTTED})({_SP}+)(import)\b",
             bygroups(Keyword.Namespace, Whitespace, Name.Namespace, Whitespace,
                      Keyword.Namespace)),
            (rf"^(import)({_SP}+)({_DOTTED})",
             bygroups(Keyword.Namespace, Whitespace, Name.Namespace)),
        ],
        "expressions": [
            include("comments"),
            (r'"', String.Double, "string"),
            (words(tuple(sorted(CONSTRUCTOR_NAMES)), prefix=r"\b", suffix=r"(\[)"),
             bygroups(Name.Builtin, Punctuation), "constructor"),
            (words(tuple(sorted(PATTERN_NAMES)), prefix=r"\b", suffix=rf"({_SP}*)(\()"),
             bygroups(Name.Builtin, Whitespace, Punctuation), "pattern-call"),
            # A shape: a `[` that doesn't follow a value (which it would index).
            (r"(?<![\w)\]])\[", Punctuation, "shape"),
            (rf"\b(over|dims)({_SP}*)(=)({_SP}*)(\([^()\n]*\)|{_NAME})",
             bygroups(Name, Whitespace, Operator, Whitespace, using(this, state="axes"))),
            include("types"),
            include("keywords"),
            include("numbers"),
            (rf"\b({_NAME})(?={_SP}*\()", Name.Function),
            (rf"(?<=\|>)({_SP}*)({_NAME})\b(?!{_SP}*\()", bygroups(Whitespace, Name.Function)),
            include("operators"),
            (r"\(", Punctuation, "parens"),
            (r"(?<=[\w)\]])\[", Punctuation, "index"),
            (r"[0-9]+[^\W\d]\w*", Name),
            (_NAME, Name),
            include("space"),
            (r"[,:.?]", Punctuation),
            (r".", Error),
        ],
        "types": [
            (words(TYPE_WORDS, prefix=r"\b", suffix=r"\b"), Keyword.Type),
            (words(DOMAINS, prefix=r"\b", suffix=r"\b"), Keyword.Type),
            (words(SPECIAL_TYPES, prefix=r"\b", suffix=rf"(\[)({_SP}*)({_NAME})({_SP}*)(\])"),
             bygroups(Keyword.Type, Punctuation, Whitespace, using(this, state="axes"),
                      Whitespace, Punctuation)),
            # The class axis of a domain: `Logit over C`.
            (rf"(?<=\bover)({_SP}+)({_NAME})",
             bygroups(Whitespace, using(this, state="axes"))),
        ],
        "keywords": [
            (words(CONTROL, prefix=r"\b", suffix=r"\b"), Keyword),
            (words(WORD_OPERATORS, prefix=r"\b", suffix=r"\b"), Operator.Word),
            (words(DECLARATIONS, prefix=r"\b", suffix=r"\b"), Keyword.Declaration),
            (words(MODES, prefix=r"\b", suffix=r"\b"), Keyword.Pseudo),
        ],
        "numbers": [
            (r"\b[0-9]+\.[0-9]+(?:[eE][-+]?[0-9]+)?\b(?!\.\.)", Number.Float),
            (r"\b[0-9]+[eE][-+]?[0-9]+\b(?!\.\.)", Number.Float),
            (r"\b[0-9]+\b(?!\.\.)", Number.Integer),
            (r"\b[0-9]+(?=\.\.)", Number.Integer),
            (words(CONSTANTS, prefix=r"\b", suffix=r"\b"), Keyword.Constant),
        ],
        "operators": [
            # `~` declares a role: `dim Dout ~ D`.
            (r"\|>|->|=>|\.\.|==|!=|<=|>=|<|>|\*\*|//|[-+*/%@~]|=", Operator),
        ],
        "space": [
            (r"[ \t\f\v]+", Whitespace),
            (r"\r?\n|\r", Whitespace),
        ],
        "string": [
            (r"\\.", String.Escape),
            (r'"', String.Double, "#pop"),
            (r'[^"\\\n]+', String.Double),
            (r"\\?\n", Whitespace, "#pop"),   # unterminated: it ends with its line
        ],
        "parens": [
            (r"\)", Punctuation, "#pop"),
            include("expressions"),
        ],
        "index": [
            (r"\]", Punctuation, "#pop"),
            include("expressions"),
        ],
        "shape": [
            (r"\]", Punctuation, "#pop"),
            include("comments"),
            include("axes"),
        ],
        "constructor": [
            (r"\]", Punctuation, "#pop"),
            include("axes"),
        ],
        "pattern-call": [
            (r"\)", Punctuation, "#pop"),
            (rf"(?<=:)({_SIDE_COMMAS})(->)({_SIDE})(?=[,)])",
             bygroups(using(this, state="axes"), Operator, using(this, state="axes"))),
            (rf"(?<=[(,])({_SIDE})(->)({_SIDE})(?=[,)])",
             bygroups(using(this, state="axes"), Operator, using(this, state="axes"))),
            include("expressions"),
        ],
        # The axes of a shape, a constructor, an `over` or a pattern.
        "axes": [
            (rf"\?{_NAME}", Name.Variable),
            (r"\.\.\.", Operator),
            (rf"\b{_NAME}\.[{_UPPER}]\w*\b", Name.Constant),
            (r"\b[0-9]+(?=[^\W\d])", Number.Integer),
            (rf"\b[{_UPPER}]\w*\b", Name.Constant),
            (r"\b[^\W\d]\w*\b", Name.Variable),
            (r"\b[0-9]+\b", Number.Integer),
            (r"[-+*/]", Operator),
            (r"\w+", Name),
            include("space"),
            (r"[(),:=.]", Punctuation),
            (r".", Error),
        ],
    }

    def analyse_text(text: str) -> float:  # Pygments' convention: no self
        """Likely ShapeScript: a `dim` or a function whose parameters have shapes."""
        if re.search(r"^dim [^\W\d]\w* = ", text, re.M) or re.search(
                r"^(?:export )?fn \w+\([^)]*\[", text, re.M):
            return 0.5
        return 0.0
