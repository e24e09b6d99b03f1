"""Nothing from a source reaches generated code but as a literal, a comment or a checked
name: a program whose file name, doc comments, strings and names are hostile generates
modules that import and run in every generator (an imported module, a standalone build,
an export module, a Hugging Face folder) and never run what they hold.

Every hostile piece tries to make the folder ``CANARY``, which must never appear.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import os

import pytest

torch = pytest.importorskip("torch")

# Triple quotes of both kinds, a newline, a backslash, braces (an f-string's hole), a
# NUL-free control character and non-ASCII text: in the file's name, its docs, a string.
NAME = 'q""";__import__("os").mkdir("CANARY");"""\n\'\'\'\\{__import__("os").mkdir("CANARY")} é.ss'
SOURCE = r'''## A doc with """ triple quotes ''' + "'''" + r''' and a \ backslash, é ü 中, and
## a line: """; __import__("os").mkdir("CANARY"); """ {__import__("os").mkdir("CANARY")}
dim D = 4
dim range = 2
const S = "\"\"\"; __import__(\"os\").mkdir(\"CANARY\") #\n''' + "'''" + r'''é \\ {x}"

## Field docs """; __import__("os").mkdir("CANARY"); """
model M:
    ## the weights """ + __import__("os").mkdir("CANARY") + """
    param lambda: [D D] = normal(std=0.1)
    param w: [D D] = normal(std=0.1)

## A function doc """ \
## and ''' + "'''" + r''' on the next line, é
fn forward(m: M, x: [b D]) -> [b D]:
    class_ = x @ m.w
    None_ = class_ @ m.lambda
    isinstance = None_ * 2.0
    sorted = isinstance + class_
    return double(sorted, 1.0) * range

## Doubles """ {__import__("os").mkdir("CANARY")}
fn double(len: [b D], tuple: float = 2.0) -> [b D]:
    return len * tuple
'''


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / NAME
    path.write_text(SOURCE, encoding="utf-8")
    yield str(path)
    assert not (tmp_path / "CANARY").exists(), "the generated code ran a source's text"


def _expected(x, m):
    h = x @ m.w
    return ((h @ getattr(m, "lambda")) * 2.0 + h) * 2


def test_an_imported_module_runs_and_runs_nothing_else(hostile):
    from shapescript import api

    mod = api.import_file(hostile)
    m = mod.M.init(seed=0)
    x = torch.randn(3, 4)
    torch.testing.assert_close(mod.forward(m, x), _expected(x, m))
    torch.testing.assert_close(mod.double(x, 3.0), x * 3.0)
    assert mod.S == '"""; __import__("os").mkdir("CANARY") #\n\'\'\'é \\ {x}'
    assert mod.forward.__doc__.startswith('A function doc """ \\')
    assert "CANARY" in mod.M.__doc__


def test_a_standalone_build_runs_and_runs_nothing_else(hostile, tmp_path):
    from click.testing import CliRunner

    from shapescript_cli.commands import build

    out = tmp_path / "built.py"
    r = CliRunner().invoke(build.command, [hostile, "-o", str(out), "--standalone"],
                           prog_name="shapescript")
    assert r.exit_code == 0, r.output
    spec = importlib.util.spec_from_file_location("built", out)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    m = mod.M.init(seed=0)
    x = torch.randn(2, 4)
    torch.testing.assert_close(mod.forward(m, x), _expected(x, m))


def test_an_export_module_runs_and_runs_nothing_else(hostile):
    from shapescript_export.api import load_module, prepare

    prep = prepare(hostile, "double")
    with load_module(prep) as ns:
        x = torch.randn(2, 4)
        torch.testing.assert_close(ns["_ss_entry"](x), x * 2.0)
        assert ns["_SS_FILE"] == hostile   # the file's name, as a string
        assert os.path.basename(hostile) in ns["export_program"].__doc__


@pytest.mark.slow
def test_a_hugging_face_folder_loads_and_runs_nothing_else(hostile, tmp_path):
    from shapescript_hf.api import export_hf

    out = tmp_path / "folder"
    export_hf(hostile, str(out), fn="forward")  # verifies: loads the folder and runs it
    text = (out / "modeling_shapescript.py").read_text(encoding="utf-8")
    ast.parse(text)
    assert "self.lambda_ = nn.Parameter(" in text  # its attribute and key: `lambda_`


def test_the_builtins_generated_code_calls_are_kept_from_users_names():
    """``pyname`` renames a user's name that is a built-in the runtime helpers (which a
    standalone module inlines beside the user's names) call."""
    from shapescript.codegen.names import GENERATED_BUILTINS
    from shapescript.rt.standalone import helper_names, helper_source

    tree = ast.parse(helper_source(sorted(helper_names()), prefix="_ss_", namespace="_ss_rt"))
    bound = {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)} | \
        {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    called = {n.id for n in ast.walk(tree)
              if isinstance(n, ast.Name) and n.id in dir(builtins) and n.id not in bound}
    assert called <= GENERATED_BUILTINS, sorted(called - GENERATED_BUILTINS)


def test_comments_and_literals_stay_what_they_are():
    from shapescript import api

    for text in ["a\nimport os", "b\rc", "\x00", "\udcff", "\u2028x", "é\\"]:
        line = api.py_comment(text)
        assert "\n" not in line and "\r" not in line
        compile(line + "\nx = 1\n", "t", "exec")  # one comment, then code
        assert eval(api.py_literal(text)) == text
        assert eval(api.py_docstring(text)) == text
    assert api.py_attribute("t", "lambda") == "getattr(t, 'lambda')"
    assert eval(api.py_literal((float("inf"), -float("inf"), 1.5))) == \
        (float("inf"), -float("inf"), 1.5)
    assert os.path.basename(api.py_name_from("2 é-x")) == "_2___x"
