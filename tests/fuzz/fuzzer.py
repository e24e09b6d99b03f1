"""A fuzzer for the whole front end: mutated and generated programs, one oracle.

Programs come from two sources, both pure functions of a seed (``program(seed)``), so a
failure's seed reproduces it:

* **mutants** of every ``.ss`` file in the repository (examples, goldens, test programs,
  the prelude): tokens deleted, duplicated and swapped, bytes flipped, the file cut
  short, expressions and blocks nested hundreds deep, very long lines, other encodings
  (Latin-1, UTF-16, a byte-order mark), NULs, CR/LF mixes, lines deleted, duplicated,
  swapped and re-indented, and pieces of other files spliced in;
* **generated** programs, from a small grammar of ShapeScript (dims, models, functions
  with statements and typed expressions, patterns, pipes, constructors …), mostly
  well formed, so the checker and the code generator see deep, valid code too.

The oracle (``run``) reads the bytes as ``shapescript check`` does (``decode_source``),
checks them, renders the diagnostics in all three formats, and for a clean program
generates the Python and compiles it with Python's own compiler. The outcome is one of
``clean`` (compiled), ``errors`` (diagnostics only), ``not-utf8`` (E0101 at a byte), or
a failure: ``internal`` (an E0000), ``crash`` (an exception out of the compiler, the
renderer, or Python's compiler on the generated code), ``bad-diagnostic`` (a diagnostic
with an unregistered code or a span outside its file), ``hang`` (more than
``TIME_LIMIT`` seconds).

``minimize`` shrinks a failing program (lines, then tokens, then bytes) while it fails
the same way: what ``benchmarks/fuzz.py --save`` keeps in ``regressions/``.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REGRESSIONS = Path(__file__).resolve().parent / "regressions"
TIME_LIMIT = 5.0
# The import-and-run stage's own limit: a program may train or loop for a while.
RUN_LIMIT = 10.0
FAILURES = ("internal", "crash", "bad-diagnostic", "hang", "import", "unsound")


def corpus() -> list[tuple[Path, bytes]]:
    """Every ``.ss`` file of the repository (but the fuzzer's own regressions)."""
    skip = {".venv", ".git", "node_modules", "regressions", "__pycache__"}
    out = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d not in skip and not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".ss"):
                p = Path(folder) / name
                out.append((p, p.read_bytes()))
    return out


# -- tokens ----------------------------------------------------------------------------

_TOKEN_RE = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*|[0-9]+(?:\.[0-9]+)?(?:e-?[0-9]+)?[A-Za-z_]*"
                       rb'|"[^"\n]*"|\.\.\.|\.\.|->|=>|\|>|//|\*\*|[=!<>]=|#[^\n]*'
                       rb"|\r\n|\n|[ \t]+|.", re.DOTALL)

VOCAB = (
    "dim fn extern export model param import from python devices return if elif else for "
    "in and or not as to over with true false none Train Index Mask Logit Prob Unit Pos "
    "NonNeg Signed Real LogProb f32 u8 bf16 i64 bool Size Axis Axes rearrange reduce repeat "
    "einsum map sum mean max min concat split stack topk cross_entropy causal zeros ones eye "
    "arange full randn rand print value_and_grad sgd update report save load softmax exp "
    "log relu argmax where x y n b D C k ?k 0 1 2 16 1e-5 0.5 3.0 16gh \"s\" + - * / // % ** "
    "@ == != < <= > >= |> => -> .. ? _ ... , : = . ( ) [ ] (h w)"
).split(" ")


def tokens(data: bytes) -> list[bytes]:
    return _TOKEN_RE.findall(data)


def _significant(toks: list[bytes]) -> list[int]:
    return [i for i, t in enumerate(toks) if t.strip() and not t.startswith(b"#")]


# -- mutations -------------------------------------------------------------------------

def _m_delete_tokens(d, rng, other):
    toks = tokens(d)
    idx = _significant(toks)
    for _ in range(rng.randint(1, 4)):
        if idx:
            toks[rng.choice(idx)] = b""
    return b"".join(toks)


def _m_duplicate_tokens(d, rng, other):
    toks = tokens(d)
    idx = _significant(toks)
    if idx:
        i = rng.choice(idx)
        toks[i] = toks[i] * rng.randint(2, 4) if rng.random() < 0.3 else toks[i] + b" " + toks[i]
    return b"".join(toks)


def _m_swap_tokens(d, rng, other):
    toks = tokens(d)
    idx = _significant(toks)
    for _ in range(rng.randint(1, 3)):
        if len(idx) > 1:
            i, j = rng.choice(idx), rng.choice(idx)
            toks[i], toks[j] = toks[j], toks[i]
    return b"".join(toks)


def _m_insert_token(d, rng, other):
    toks = tokens(d)
    k = rng.randrange(len(toks) + 1)
    piece = rng.choice(VOCAB).encode()
    toks.insert(k, b" " + piece + b" " if rng.random() < 0.5 else piece)
    return b"".join(toks)


def _m_replace_name(d, rng, other):
    toks = tokens(d)
    names = [i for i, t in enumerate(toks) if re.fullmatch(rb"[A-Za-z_]\w*", t)]
    if names:
        i = rng.choice(names)
        toks[i] = toks[rng.choice(names)] if rng.random() < 0.7 else rng.choice(VOCAB).encode()
    return b"".join(toks)


def _m_number(d, rng, other):
    toks = tokens(d)
    nums = [i for i, t in enumerate(toks) if t[:1].isdigit()]
    if nums:
        toks[rng.choice(nums)] = rng.choice(
            [b"0", b"1", b"-1", b"2", b"7", b"0.5", b"1e-5", b"1e400", b"9" * 40, b"2x", b"0gh",
             b"100000000000000000000", b"3.0", b"16n"])
    return b"".join(toks)


def _m_flip_bytes(d, rng, other):
    b = bytearray(d)
    for _ in range(rng.randint(1, 4)):
        if b:
            # Mostly below the high bit, so most flips leave the file UTF-8 and reach the
            # parser; _m_bad_utf8 and _m_encoding cover the rest.
            b[rng.randrange(len(b))] ^= 1 << (rng.randrange(7) if rng.random() < 0.9 else 7)
    return bytes(b)


def _m_truncate(d, rng, other):
    return d[:rng.randrange(len(d) + 1)]


def _m_lines(d, rng, other):
    lines = d.split(b"\n")
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(5)
        i = rng.randrange(len(lines))
        if op == 0 and len(lines) > 1:
            del lines[i]
        elif op == 1:
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
        elif op == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            lines[i] = b"    " + lines[i]
        else:
            lines[i] = lines[i].lstrip()
    return b"\n".join(lines)


def _m_splice(d, rng, other):
    o = other.split(b"\n")
    a = rng.randrange(len(o))
    piece = b"\n".join(o[a:a + rng.randint(1, 12)])
    lines = d.split(b"\n")
    k = rng.randrange(len(lines) + 1)
    return b"\n".join(lines[:k] + [piece] + lines[k:])


_NESTS = (
    lambda n: b"(" * n + b"x" + b")" * n,
    lambda n: b" + ".join([b"x"] * n),
    lambda n: b" * ".join([b"x"] * n),
    lambda n: b"-" * n + b"x",
    lambda n: b"f(" * n + b"x" + b")" * n,
    lambda n: b"exp(" * n + b"x" + b")" * n,
    lambda n: b"x" + b" |> f" * n,
    lambda n: b"x" + b" to f32" * n,
    lambda n: b"x" + b" as [n]" * n,
    lambda n: b"x" + b"[0]" * n,
    lambda n: b"[" * n + b"x" + b"]" * n,
    lambda n: b"(x, " * n + b"x" + b")" * n,
    lambda n: b"not " * n + b"x",
    lambda n: b" and ".join([b"x > 0"] * n),
    lambda n: b"x" + b".a" * n,
    lambda n: b"(" * n,
    lambda n: b"x - (" * n + b"x" + b")" * n,
)


def _m_nest(d, rng, other):
    """A deep expression, in place of a token or as a whole function."""
    n = rng.choice([20, 60, 63, 64, 65, 66, 100, 200, 300, 1000, 3000])
    deep = rng.choice(_NESTS)(n)
    if rng.random() < 0.4:
        return d + b"\nfn f_deep(x: [n]) -> [n] = " + deep + b"\n"
    if rng.random() < 0.3:
        size = b" + ".join([b"n"] * n) if rng.random() < 0.5 else b"(" * n + b"n" + b")" * n
        return d + b"\ndim Deep = " + size.replace(b"n", b"1") + b"\nfn g_deep(x: [" + size + \
            b"]) -> [n] = x\n"
    toks = tokens(d)
    idx = _significant(toks)
    if idx:
        toks[rng.choice(idx)] = deep
    return b"".join(toks)


def _m_blocks(d, rng, other):
    n = rng.choice([10, 15, 16, 17, 30, 99, 100, 101, 300])
    head = rng.choice([b"if x > 0:", b"for i in 0..2:", b"with Train:", b"if true:"])
    body = b"".join(b"    " * (i + 1) + head + b"\n" for i in range(n))
    body += b"    " * (n + 1) + b"return x\n"
    return d + b"\nfn h_deep(x: [n]) -> [n]:\n" + body + b"    return x\n"


def _m_sizes(d, rng, other):
    """Sizes that grow exponentially: a chain of dims, each from the one before, or a
    product of long sums in a signature."""
    n = rng.choice([5, 20, 40, 70])
    if rng.random() < 0.5:
        op = rng.choice(["*", "+", "-", "/"])
        chain = f"dim Q0 = {rng.choice([2, 3, 65536, 0, 1])}\n" + "".join(
            f"dim Q{i + 1} = Q{i} {op} Q{i}\n" for i in range(n))
        return d + b"\n" + chain.encode() + f"fn q(x: [Q{n}]) -> [Q{n}] = x\n".encode()
    terms = " + ".join(rng.sample("abcdeghkm", rng.randint(2, 9)))
    names = sorted(set(terms) - set(" +"))
    params = ", ".join(f"p{v}: [{v}]" for v in names)
    shape = " * ".join([f"({terms})"] * rng.randint(2, n // 2))
    return d + f"\nfn q({params}, big: [{shape}]) -> [a] = pa\n".encode()


def _m_long_line(d, rng, other):
    lines = d.split(b"\n")
    i = rng.randrange(len(lines))
    k = rng.choice([200, 2000, 20000])
    choice = rng.randrange(4)
    if choice == 0:
        lines[i] = lines[i] * max(1, k // max(1, len(lines[i])))
    elif choice == 1:
        lines[i] += b" " + b"a" * k
    elif choice == 2:
        lines[i] += b' "' + b"s" * k + b'"'
    else:
        lines[i] += b" " * k + b"# " + b"c" * k
    return b"\n".join(lines)


def _m_encoding(d, rng, other):
    text = d.decode("utf-8", "replace")
    k = rng.randrange(len(text) + 1)
    text = text[:k] + rng.choice(["é", "ü", "€", "名前", "λ", "\u00a0", "ß", "😀"]) + text[k:]
    enc = rng.choice(["latin-1", "cp1252", "utf-16", "utf-16-le", "utf-8-sig", "utf-32",
                      "shift_jis", "utf-8"])
    return text.encode(enc, "replace")


def _m_bad_utf8(d, rng, other):
    k = rng.randrange(len(d) + 1)
    piece = rng.choice([b"\xe9", b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
                        b"\x80", b"\xc0\xaf", b"\xe2\x82"])
    return d[:k] + piece + d[k:]


def _m_nul(d, rng, other):
    b = bytearray(d)
    for _ in range(rng.randint(1, 3)):
        b.insert(rng.randrange(len(b) + 1), 0)
    return bytes(b)


def _m_newlines(d, rng, other):
    parts = d.split(b"\n")
    out = parts[0]
    for p in parts[1:]:
        out += rng.choice([b"\n", b"\r\n", b"\r", b"\n\r", b"\n"]) + p
    return out


def _m_control(d, rng, other):
    k = rng.randrange(len(d) + 1)
    return d[:k] + rng.choice([b"\t", b"\f", b"\v", b"\x1b", b"\x7f", b"\xc2\x85",
                               b"\xe2\x80\xa8", b"\xef\xbb\xbf", b"\\", b"`", b"$"]) + d[k:]


MUTATIONS = (
    _m_delete_tokens, _m_duplicate_tokens, _m_swap_tokens, _m_insert_token, _m_replace_name,
    _m_number, _m_flip_bytes, _m_truncate, _m_lines, _m_splice, _m_nest, _m_blocks, _m_sizes,
    _m_long_line, _m_encoding, _m_bad_utf8, _m_nul, _m_newlines, _m_control,
)


def mutate(data: bytes, rng: random.Random, other: bytes, steps: int) -> bytes:
    for _ in range(steps):
        data = rng.choice(MUTATIONS)(data, rng, other)
    return data


# -- generation ------------------------------------------------------------------------

class Gen:
    """Random programs from a small grammar of ShapeScript: typed enough to get past the
    parser most of the time and reach the checker and the code generator."""

    DIMS = ("D", "C", "H")
    GENERICS = ("n", "b", "k")
    DTYPES = ("f32", "f32", "f32", "bf16", "i64", "bool", "u8", "f16")
    DOMAINS = ("", "", "", " Unit", " Pos", " NonNeg", " Signed", " Index[C]", " Mask",
               " Logit over C", " Prob over C", " LogProb over C")
    UNARY = ("exp", "log", "relu", "abs", "sqrt", "tanh", "sigmoid", "softmax", "neg")
    BINARY = ("+", "-", "*", "/", "**", "//", "%", "@", "==", "<", ">", "and", "or")

    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    def size(self, depth: int = 0) -> str:
        r = self.r
        k = r.randrange(9 if depth < 3 else 3)
        if k == 0:
            return str(r.choice([1, 2, 3, 4, 16, 0]))
        if k == 1:
            return r.choice(self.DIMS)
        if k == 2:
            return r.choice(self.GENERICS)
        if k == 3:
            return f"{r.choice([2, 16])}{r.choice(self.GENERICS)}"
        op = r.choice(["+", "-", "*", "/", "*"])
        return f"{self.size(depth + 1)}{op}{self.size(depth + 1)}" if r.random() < 0.5 else \
            f"({self.size(depth + 1)} {op} {self.size(depth + 1)})"

    def shape(self) -> str:
        r = self.r
        axes = [self.size() for _ in range(r.randrange(4))]
        if r.random() < 0.05:
            axes.insert(0, "...")
        if r.random() < 0.05:
            axes.append("?k")
        return "[" + " ".join(axes) + "]"

    def type(self) -> str:
        r = self.r
        k = r.randrange(12)
        if k == 0:
            return r.choice(["int", "float", "bool", "str"])
        if k == 1:
            return "Net"
        if k == 2:
            return f"({self.type()}, {self.type()})"
        dt = " " + r.choice(self.DTYPES) if r.random() < 0.4 else ""
        return self.shape() + dt + r.choice(self.DOMAINS)

    def expr(self, names: list[str], depth: int = 0) -> str:
        r = self.r
        if depth > r.choice([2, 3, 4, 6, 10]) or r.random() < 0.2:
            return self.atom(names)
        k = r.randrange(16)
        e = lambda: self.expr(names, depth + 1)  # noqa: E731
        if k < 4:
            return f"{e()} {r.choice(self.BINARY)} {e()}"
        if k == 4:
            return f"{r.choice(self.UNARY)}({e()})"
        if k == 5:
            return f"{r.choice(['sum', 'mean', 'max', 'argmax', 'softmax'])}({e()}, over={r.choice(self.DIMS + self.GENERICS)})"
        if k == 6:
            return f"{e()} |> {r.choice(self.UNARY + ('f', 'to f32', 'to u8'))}"
        if k == 7:
            return f"{e()} as {self.type()}"
        if k == 8:
            return f"{e()} to {r.choice(self.DTYPES + ('Unit', 'f32 Unit', 'Pos'))}"
        if k == 9:
            pat = r.choice(["b n D -> b D n", "b (h w) -> b h w", "b n D -> b D", "n D -> D n",
                            "b c (h p) -> b h p c", "n -> n 1", "(a b) -> a b"])
            fn = r.choice(["rearrange", "reduce", "repeat"])
            extra = r.choice(["", ", mean", ", h=2", ", p=16", ", sum"])
            return f"{fn}({e()}, {pat}{extra})"
        if k == 10:
            return f"{e()}[{r.choice(['0', '1', ':', '-1', '0, 1', '..', 'i', 'x > 0'])}]"
        if k == 11:
            ctor = r.choice(["zeros", "ones", "randn", "rand", "arange", "eye", "causal"])
            return f"{ctor}[{' '.join(self.size() for _ in range(r.randint(1, 3)))}]" + \
                (f" {r.choice(self.DTYPES)}" if r.random() < 0.3 else "")
        if k == 12:
            return f"({e()}, {e()})"
        if k == 13:
            return f"-{e()}"
        if k == 14:
            return f"f({e()})"
        return f"einsum({e()}, {e()}: n D, D C -> n C)"

    def atom(self, names: list[str]) -> str:
        r = self.r
        k = r.randrange(10)
        if k < 6 and names:
            return r.choice(names)
        if k == 6:
            return r.choice(["0", "1", "2.5", "1e-5", "true", "false", "0.0"])
        if k == 7:
            return r.choice(self.DIMS)
        if k == 8:
            return "m.w" if "m" in names else "x"
        return r.choice(['"s"', "none", "_", "n"])

    def block(self, names: list[str], indent: int, depth: int) -> list[str]:
        r = self.r
        pad = "    " * indent
        out = []
        local = list(names)
        for _ in range(r.randint(1, 4)):
            k = r.randrange(8 if depth < 3 else 4)
            if k < 3:
                v = r.choice(["y", "z", "h", "t"])
                ann = f": {self.type()}" if r.random() < 0.2 else ""
                out.append(f"{pad}{v}{ann} = {self.expr(local)}")
                local.append(v)
            elif k == 3:
                out.append(f"{pad}{self.expr(local)}")
            elif k == 4:
                out.append(f"{pad}if {self.expr(local)}:")
                out += self.block(local, indent + 1, depth + 1)
                if r.random() < 0.5:
                    out.append(f"{pad}else:")
                    out += self.block(local, indent + 1, depth + 1)
            elif k == 5:
                out.append(f"{pad}for i in {r.choice(['0..3', '0..n', 'x', 'batches(x, 2)'])}:")
                out += self.block(local + ["i"], indent + 1, depth + 1)
            elif k == 6:
                out.append(f"{pad}with {r.choice(['Train', 'Eval'])}:")
                out += self.block(local, indent + 1, depth + 1)
            else:
                out.append(f"{pad}m.w = {self.expr(local)}")
        out.append(f"{pad}return {self.expr(local)}")
        return out

    # Expressions of type [n D] f32 from expressions of that type: valid programs, as
    # deep as asked, for the checker's and the code generator's whole path.
    VALID = ("({a}) + ({b})", "({a}) * ({b})", "({a}) - ({b})", "({a}) / 2.0", "exp({a})",
             "relu({a})", "-({a})", "f({a})", "({a}) |> f", "({a}) |> relu",
             "({a}) as [n D]", "rearrange(rearrange({a}, n D -> D n), D n -> n D)",
             "softmax({a}, over=D)", "({a}) * 0.5 + 1.0", "({a}) @ w @ v",
             "({a}) + sum({b}, over=n)", "({a}) + mean({b}, over=D)",
             "tanh({a}) * sigmoid({b})", "({a}) to f32", "({a}) + y", "abs({a}) + 1e-5",
             "({a}) |> f |> relu")

    def valid_expr(self, depth: int) -> str:
        r = self.r
        if depth <= 0 or r.random() < 0.15:
            return r.choice(["x", "x", "y", "x * 2.0"])
        return r.choice(self.VALID).format(a=self.valid_expr(depth - 1),
                                           b=self.valid_expr(depth // 2))

    def valid_program(self) -> str:
        r = self.r
        out = ["dim D = 4", "dim C = 3", "",
               "fn f(x: [n D]) -> [n D] = x * 2.0",
               "fn g(x: [n D], w: [D C], v: [C D]) -> [n D]:",
               "    y = x + 1.0"]
        depth = r.choice([1, 2, 4, 8, 16, 30, 50, 60])
        for i in range(r.randint(0, 3)):
            pad = "    " * (i + 1)
            out.append(f"{pad}{r.choice(['if sum(y) > 0.0:', 'for i in 0..3:', 'if true:'])}")
            out.append(f"{pad}    y = {self.valid_expr(min(depth, 8))}")
        out.append(f"    return {self.valid_expr(depth)}")
        return "\n".join(out) + "\n"

    def program(self) -> str:
        r = self.r
        if r.random() < 0.4:
            return self.valid_program()
        out = []
        if r.random() < 0.3:
            out.append(r.choice(["devices cpu", "import python torch", "import python math"]))
        out.append(f"dim D = {r.choice(['4', '8', '2*2', '16'])}")
        out.append(f"dim C = {r.choice(['3', 'D', 'D/2', 'D + 1'])}")
        if r.random() < 0.5:
            out.append(f"dim H = {r.choice(['D + C', 'D * 2', '(D - 1) / 3', 'C'])}")
        if r.random() < 0.6:
            out.append("model Net:")
            for f in ("w", "b")[:r.randint(1, 2)]:
                init = r.choice(["", " = zeros", " = randn", " = ones"])
                shape = " ".join(r.choice(self.DIMS) for _ in range(r.randint(0, 2)))
                out.append(f"    param {f}: [{shape}]{init}")
        if r.random() < 0.3:
            out.append('extern fn f(x: [...]) -> [...] = "torch.tanh"')
        else:
            out.append("fn f(x: [n D]) -> [n D] = x")
        for i in range(r.randint(1, 3)):
            params = [(p, self.type()) for p in ("x", "y", "m")[:r.randint(1, 3)]]
            sig = ", ".join(f"{p}: {t}" for p, t in params)
            head = r.choice(["fn", "fn", "fn", "export fn"])
            ret = f" -> {self.type()}" if r.random() < 0.9 else ""
            names = [p for p, _ in params]
            if r.random() < 0.3:
                out.append(f"{head} g{i}({sig}){ret} = {self.expr(names)}")
            else:
                out.append(f"{head} g{i}({sig}){ret}:")
                out += self.block(names, 1, 0)
        return "\n".join(out) + "\n"


# -- programs --------------------------------------------------------------------------

@dataclass(frozen=True)
class Case:
    seed: int
    kind: str  # "mutant" | "generated"
    origin: Path  # the corpus file mutated (or the folder a generated program is in)
    data: bytes


_CORPUS: list[tuple[Path, bytes]] = []


def program(seed: int, generated_share: float = 0.3) -> Case:
    """The fuzz case of ``seed``: a mutant or a generated program."""
    if not _CORPUS:
        _CORPUS.extend(corpus())
    rng = random.Random(seed)
    if rng.random() < generated_share:
        text = Gen(rng).program()
        if rng.random() < 0.3:
            text = mutate(text.encode(), rng, rng.choice(_CORPUS)[1], rng.randint(1, 3)).decode(
                "utf-8", "surrogateescape")
        data = text.encode("utf-8", "surrogateescape")
        return Case(seed, "generated", ROOT / "tests" / "golden" / "generated.ss", data)
    origin, data = rng.choice(_CORPUS)
    other = rng.choice(_CORPUS)[1]
    steps = rng.choice([1, 1, 2, 3, 5, 12])
    return Case(seed, "mutant", origin.with_name("fuzz_mutant.ss"),
                mutate(data, rng, other, steps))


# -- the oracle ------------------------------------------------------------------------

@dataclass(frozen=True)
class Outcome:
    kind: str  # clean | errors | not-utf8 | internal | crash | bad-diagnostic | hang
    detail: str = ""
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        return self.kind in FAILURES

    def signature(self) -> str:
        """What must stay the same while minimising: the kind and, for a crash or an
        internal error, the exception type and the innermost frame of the compiler."""
        return self.kind + ":" + self.detail.split("\n", 1)[0]


class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _internal_detail(src: str, path: str, search) -> str:
    from shapescript.compiler import check_program

    old = os.environ.get("SHAPESCRIPT_DEBUG")
    os.environ["SHAPESCRIPT_DEBUG"] = "1"
    try:
        for d in check_program(src, path, search).diagnostics:
            if d.code == "E0000":
                tb = d.notes[-1] if len(d.notes) > 1 else ""
                return _where(tb) + "\n" + tb
    finally:
        if old is None:
            os.environ.pop("SHAPESCRIPT_DEBUG", None)
        else:
            os.environ["SHAPESCRIPT_DEBUG"] = old
    return "E0000 in code generation"


def _where(tb: str) -> str:
    """The exception and the innermost ShapeScript frame of a traceback's text."""
    lines = [ln for ln in tb.strip().splitlines() if ln.strip()]
    frames = [ln.strip() for ln in lines if ln.strip().startswith("File ") and "shapescript" in ln]
    last = lines[-1] if lines else ""
    where = frames[-1].split("/")[-1] if frames else ""
    return f"{last.split(':')[0]} at {where}"


def _check_diagnostics(diags, sources, path) -> str | None:
    from shapescript.codes import CODES

    per_file: dict[str, int] = {}
    n_lines_of: dict[str, int] = {}
    for d in diags:
        if d.code not in CODES:
            return f"unregistered code {d.code}"
        if d.severity not in ("error", "warning") or not d.message or d.message != d.message.strip():
            return f"malformed diagnostic {d}"
        text = sources.get(d.file)
        if text is None:
            return f"a diagnostic in a file that wasn't read: {d.file}"
        n_lines = n_lines_of.get(d.file)
        if n_lines is None:
            n_lines = n_lines_of[d.file] = len(re.split(r"\r\n|\n|\r", text))
        if not (1 <= d.line <= n_lines + 1 and d.column >= 1 and d.end_line >= d.line):
            return f"span outside the file ({n_lines} lines): {d}"
        if d.end_line == d.line and d.end_column < d.column:
            return f"span ends before it starts: {d}"
        for lb in d.labels:
            if lb.line < 1 or lb.column < 1 or lb.end_line < lb.line:
                return f"bad label {lb}"
        per_file[d.file] = per_file.get(d.file, 0) + 1
    from shapescript.compiler import MAX_DIAGNOSTICS_PER_FILE

    if any(n > MAX_DIAGNOSTICS_PER_FILE for n in per_file.values()):
        return "more diagnostics than the cap"
    return None


def run(data: bytes, path: str, search: list[str] | None = None,
        limit: float = TIME_LIMIT, execute: bool = False) -> Outcome:
    """Check, render and (when clean) compile the program ``data`` as the file ``path``;
    with ``execute``, then import the module and call its functions (``execute.py``):
    ``import`` when it doesn't import, ``unsound`` when a call fails otherwise than with
    a ShapeScript error."""
    from shapescript.compiler import check_program, compile_source, to_code
    from shapescript.render import render
    from shapescript.source import SourceDecodeError, decode_source

    if execute:
        # Loaded before any clock starts: an alarm in the middle of importing torch
        # leaves it half-initialised for every later program.
        import einops  # noqa: F401
        import torch  # noqa: F401

        import shapescript.rt  # noqa: F401
    start = time.perf_counter()
    use_alarm = hasattr(signal, "setitimer") and limit > 0
    if use_alarm:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        try:
            src = decode_source(data, path)
        except SourceDecodeError as err:
            d = err.diagnostic
            bad = _check_diagnostics([d], {path: err.text}, path)
            if bad or d.code != "E0101":
                return Outcome("bad-diagnostic", bad or d.code)
            render([d], {path: err.text}, "full")
            return Outcome("not-utf8", seconds=time.perf_counter() - start)
        program = check_program(src, path, search)
        diags = program.diagnostics
        sources = dict(program.sources)
        sources.setdefault(path, src)
        if any(d.code == "E0000" for d in diags):
            return Outcome("internal", _internal_detail(src, path, search))
        bad = _check_diagnostics(diags, sources, path)
        if bad:
            return Outcome("bad-diagnostic", bad)
        for fmt in ("full", "concise", "json"):
            text = render(diags, sources, fmt)
            if fmt == "json":
                json.loads(text)
        if not program.ok:
            return Outcome("errors", seconds=time.perf_counter() - start)
        out = compile_source(src, path)
        if any(d.code == "E0000" for d in out.diagnostics):
            tb = [d.notes for d in out.diagnostics if d.code == "E0000"]
            return Outcome("internal", "E0000 in code generation\n" + repr(tb))
        if out.python is None:
            return Outcome("crash", "a clean program generated no Python")
        code = to_code(out, path)
        if execute:
            bad = _execute(code, path, program, data, use_alarm)
            if bad is not None:
                return bad
        return Outcome("clean", seconds=time.perf_counter() - start)
    except _Timeout:
        return Outcome("hang", f"over {limit} s")
    except Exception as err:  # noqa: BLE001 - what the fuzzer is looking for
        tb = traceback.format_exc()
        return Outcome("crash", f"{type(err).__name__} at {_where(tb).split(' at ')[-1]}\n{tb}")
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)


def _execute(code, path: str, program, data: bytes, use_alarm: bool) -> Outcome | None:
    """The import-and-run stage, under its own time limit (running out is no failure)."""
    import zlib

    from execute import import_and_run
    import shapescript
    from shapescript.syntax import ast

    modules = {d.module.split(".")[0] for m in program.modules.values()
               for d in m.env.module.decls if isinstance(d, ast.ImportPython)}
    modules |= {(sig.extern or "").split(".")[0] for m in program.modules.values()
                for sig in m.env.fns.values() if sig.is_extern} - {"torch", "shapescript", ""}
    shipped = Path(shapescript.__file__).parent / "prelude"
    own = frozenset(sig.extern for m in program.modules.values() for sig in m.env.fns.values()
                    if sig.extern and not (Path(sig.file).parent == shipped
                                           and Path(sig.file).name != "fuzz_mutant.ss"))
    if use_alarm:
        signal.setitimer(signal.ITIMER_REAL, RUN_LIMIT)
    try:
        bad = import_and_run(code, path, modules, zlib.crc32(data), own)
    except _Timeout:
        return None
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return None if bad is None else Outcome(bad[0], bad[1])


def run_case(case: Case, execute: bool = False, limit: float = TIME_LIMIT) -> Outcome:
    return run(case.data, str(case.origin), search=[], limit=limit, execute=execute)


# -- minimising ------------------------------------------------------------------------

def minimize(data: bytes, path: str, signature: str, budget: float = 60.0) -> bytes:
    """A smaller ``data`` that fails with the same ``signature`` (greedy: chunks of
    lines, then tokens, then bytes, each halved until single pieces; at most ``budget``
    seconds)."""
    deadline = time.monotonic() + budget

    def fails(candidate: bytes) -> bool:
        return run(candidate, path, search=[],
                   execute=signature.startswith(("import:", "unsound:"))).signature() == signature

    for split, join in ((lambda d: d.split(b"\n"), b"\n".join), (tokens, b"".join),
                        (lambda d: [bytes([c]) for c in d], b"".join)):
        parts = split(data)
        n = max(1, len(parts) // 2)
        while n >= 1 and time.monotonic() < deadline:
            i = 0
            changed = False
            while i < len(parts) and time.monotonic() < deadline:
                candidate = parts[:i] + parts[i + n:]
                if candidate != parts and fails(join(candidate)):
                    parts = candidate
                    changed = True
                else:
                    i += n
            if not changed:
                n //= 2
        data = join(parts)
    return data
