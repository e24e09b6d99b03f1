"""The Pygments lexer (``shapescript.pygments_lexer``): Pygments finds it by its aliases,
MkDocs' Markdown colours ```` ```ss ```` blocks with it, every ShapeScript block of the
documentation lexes without an error token, and it agrees with the VS Code grammar on
the class of every character of the documentation's and examples' programs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pygments = pytest.importorskip("pygments")

from pygments.lexers import get_lexer_by_name  # noqa: E402
from pygments.token import Error, Token  # noqa: E402

from shapescript.pygments_lexer import ShapeScriptLexer  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
VSCODE = ROOT / "editors" / "vscode"
GRAMMAR = VSCODE / "syntaxes" / "shapescript.tmLanguage.json"
_BLOCK = re.compile(r"^```ss([^\n]*)\n(.*?)^```", re.M | re.S)

PROGRAM = """\
## Layer normalization.
dim D = 32

fn norm(x: [b n D], eps = 1e-5) -> [b n D] f32:
    mu = mean(x, over=D)  # the mean
    return (x - mu) / sqrt(square(x - mu) + eps)
"""


def doc_blocks() -> list[tuple[str, str]]:
    """(where, code) of each ```ss block of README.md and docs/."""
    out = []
    for md in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = md.read_text(encoding="utf-8")
        for m in _BLOCK.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append((f"{md.relative_to(ROOT)}:{line}", m.group(2)))
    return out


def examples() -> list[tuple[str, str]]:
    """The programs both colourers are compared on: the documentation's blocks, the
    examples' and tutorial's files, and the grammar's own test files."""
    files = [*sorted((ROOT / "examples").rglob("*.ss")), *sorted((ROOT / "docs").rglob("*.ss")),
             *sorted((VSCODE / "tests" / "grammar").glob("*.ss"))]
    return doc_blocks() + [(str(f.relative_to(ROOT)), f.read_text(encoding="utf-8"))
                           for f in files]


def _lex(code: str) -> list[tuple[object, str]]:
    return list(ShapeScriptLexer().get_tokens(code))


# --- Pygments finds it ----------------------------------------------------------------------

@pytest.mark.parametrize("alias", ["ss", "shapescript"])
def test_pygments_finds_the_lexer_by_its_aliases(alias):
    assert type(get_lexer_by_name(alias)) is ShapeScriptLexer


def test_pygmentize_colours_a_file(tmp_path):
    src = tmp_path / "norm.ss"
    src.write_text(PROGRAM)
    r = subprocess.run([sys.executable, "-m", "pygments", "-l", "shapescript", "-f", "html",
                        str(src)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert '<span class="kd">fn</span>' in r.stdout            # a declaration keyword
    assert '<span class="no">D</span>' in r.stdout             # a dim
    assert '<span class="kt">f32</span>' in r.stdout           # a dtype
    assert '<span class="cs">## Layer normalization.</span>' in r.stdout


def test_mkdocs_markdown_colours_ss_blocks():
    # The site's Markdown extensions (mkdocs.yml): pymdownx.highlight asks Pygments.
    markdown = pytest.importorskip("markdown")
    html = markdown.markdown(f"```ss {{expect=E0401}}\n{PROGRAM}```\n",
                             extensions=["attr_list", "pymdownx.highlight",
                                         "pymdownx.superfences"])
    assert '<span class="kd">fn</span>' in html and '<span class="err">' not in html


# --- the documentation's blocks ---------------------------------------------------------------

def test_the_documentation_has_blocks_to_lex():
    assert len(doc_blocks()) >= 20


@pytest.mark.parametrize("where,code", doc_blocks(), ids=[w for w, _ in doc_blocks()])
def test_each_documentation_block_lexes_without_error_tokens(where, code):
    bad = [(t, v) for t, v in _lex(code) if t in Error]
    assert not bad, f"{where}: {bad}"


def test_names_beyond_ascii_are_names_dims_and_axes():
    # Names are Python identifiers: `ß` is a generic axis, `Höhe` and `Ωmega` dims.
    tokens = _lex("dim Höhe = 4\nfn dreh(x: [ß Höhe Ωmega], größe: float = 2.0) -> [ß] = "
                  "reduce(x, ß h w -> ß, sum) * größe\n")
    assert not [v for t, v in tokens if t in Error]
    kinds = {v: token_class(t) for t, v in tokens if v.strip()}
    assert kinds["Höhe"] == kinds["Ωmega"] == "dim"
    assert (Token.Name.Variable, "ß") in tokens
    assert (Token.Name.Function, "dreh") in tokens


def test_a_character_the_language_has_no_use_for_is_an_error_token():
    tokens = _lex("fn f(x: [n]) -> [n] = x $ {1}\n")
    assert [v for t, v in tokens if t in Error] == ["$", "{", "}"]


# --- the VS Code grammar agrees ---------------------------------------------------------------

# The classes both are compared on. A TextMate scope and a Pygments token type each map to
# one; anything else (names, axes, functions, punctuation, space) is "other".
CLASSES = ("comment", "string", "number", "keyword", "type", "dim", "operator", "other")

_SCOPES = [  # the first prefix that a scope starts with decides
    ("comment.", "comment"),
    ("string.", "string"),
    ("constant.character.escape.", "string"),
    ("constant.numeric.", "number"),
    ("constant.other.dim.", "dim"),
    ("storage.type.dtype.", "type"),
    ("support.type.", "type"),
    ("keyword.operator.word.", "keyword"),
    ("keyword.operator.", "operator"),
    ("keyword.", "keyword"),
    ("storage.", "keyword"),
    ("constant.language.", "keyword"),
    ("support.constant.mode.", "keyword"),
]

_TOKENS = [  # the first token type a token is in decides
    (Token.Comment, "comment"),
    (Token.Literal.String, "string"),
    (Token.Literal.Number, "number"),
    (Token.Name.Constant, "dim"),
    (Token.Keyword.Type, "type"),
    (Token.Operator.Word, "keyword"),
    (Token.Keyword, "keyword"),
    (Token.Operator, "operator"),
]


def scope_class(scopes: list[str]) -> str:
    """The class of a TextMate token: its innermost scope that maps to one."""
    for scope in reversed(scopes):
        for prefix, cls in _SCOPES:
            if scope.startswith(prefix):
                return cls
    return "other"


def token_class(ttype: object) -> str:
    for parent, cls in _TOKENS:
        if ttype in parent:
            return cls
    return "other"


def _pygments_classes(code: str) -> list[list[str]]:
    lines: list[list[str]] = [[]]
    for _, ttype, value in ShapeScriptLexer().get_tokens_unprocessed(code):
        for ch in value:
            if ch == "\n":
                lines.append([])
            else:
                lines[-1].append(token_class(ttype))
    return lines


def _grammar_classes(tokens: list[list], code: str) -> list[list[str]]:
    lines = [["other"] * len(line) for line in code.split("\n")]
    for n, start, end, scopes in tokens:
        for col in range(start, end):
            lines[n][col] = scope_class(scopes)
    return lines


def _tokenize_with_the_grammar(codes: list[str]) -> list[list[list]]:
    proc = subprocess.run(["node", str(VSCODE / "scripts" / "tokens.js")],
                          input=json.dumps(codes), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_class_mapping_reads_scopes_and_tokens():
    assert scope_class(["source.shapescript", "meta.shape.shapescript",
                        "constant.other.dim.shapescript"]) == "dim"
    assert scope_class(["source.shapescript", "keyword.operator.word.shapescript"]) == "keyword"
    assert scope_class(["source.shapescript", "entity.name.function.shapescript"]) == "other"
    assert token_class(Token.Keyword.Declaration) == "keyword"
    assert token_class(Token.Operator.Word) == "keyword"
    assert token_class(Token.Name.Function) == "other"


@pytest.mark.skipif(shutil.which("node") is None
                    or not (VSCODE / "node_modules" / "vscode-textmate").exists(),
                    reason="needs node and `npm install` in editors/vscode (.ci/run does it)")
def test_the_grammar_and_the_lexer_agree_on_every_character():
    progs = examples()
    assert len(progs) >= 30
    grammar = _tokenize_with_the_grammar([code for _, code in progs])
    differ = []
    for (where, code), tokens in zip(progs, grammar):
        ours = _pygments_classes(code)
        theirs = _grammar_classes(tokens, code)
        for n, (line, a, b) in enumerate(zip(code.split("\n"), ours, theirs), 1):
            cols = [c for c, ch in enumerate(line) if not ch.isspace() and a[c] != b[c]]
            if cols:
                c = cols[0]
                differ.append(f"{where}+{n}:{c + 1}: {line.strip()!r}: at {line[c:c + 12]!r} "
                              f"Pygments says {a[c]}, the grammar {b[c]}")
    assert not differ, f"{len(differ)} lines differ:\n" + "\n".join(differ[:40])


def test_the_grammar_names_the_words_the_lexer_has():
    # The lexer's words come from the compiler's tables; the grammar spells them out.
    from shapescript.builtin_registry import CONSTRUCTOR_NAMES, PATTERN_NAMES
    from shapescript.pygments_lexer import CONTROL, DECLARATIONS, TYPE_WORDS, WORD_OPERATORS
    from shapescript.vocab import DOMAINS

    rules = json.loads(GRAMMAR.read_text(encoding="utf-8"))["repository"]
    keywords = [p["match"] for p in rules["keywords"]["patterns"]]
    types = [p["match"] for p in rules["types"]["patterns"]]

    def words(pattern: str) -> set[str]:
        m = re.search(r"\(([A-Za-z0-9_|]+)\)", pattern)
        assert m, pattern
        return set(m.group(1).split("|"))

    assert words(keywords[0]) == set(CONTROL)
    assert words(keywords[1]) == set(WORD_OPERATORS)
    assert words(keywords[2]) == set(DECLARATIONS)
    assert words(types[0]) == set(TYPE_WORDS)
    assert words(types[1]) == set(DOMAINS)
    assert words(rules["constructor"]["patterns"][0]["begin"]) == set(CONSTRUCTOR_NAMES)
    assert words(rules["pattern-call"]["patterns"][0]["begin"]) == set(PATTERN_NAMES)
