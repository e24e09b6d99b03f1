"""What the compiler writes depends on the program only, never on the process: the
generated Python and the type stubs of every example and the rendered diagnostics of every golden program
are the same under different string-hash seeds (``PYTHONHASHSEED``), so a build is
reproducible and a cached module is never rewritten for nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Run in a fresh interpreter per hash seed: compile every example, check every golden
# program, print what came out.
SCRIPT = r"""
import json, sys
from pathlib import Path
from shapescript.codegen.stubs import stub_source
from shapescript.compiler import check_program, compile_source
from shapescript.render import render

out = {}
for p in sorted(Path(sys.argv[1]).glob("examples/**/*.ss")):
    src = p.read_text(encoding="utf-8")
    r = compile_source(src, str(p), stubs="pyrefly")
    out[str(p)] = (r.python or "") + render(r.diagnostics, {str(p): src}, "full")
    out[str(p) + ".pyi"] = r.stub or ""
    out[str(p) + ".jaxtyping.pyi"] = stub_source(check_program(src, str(p)).main, "jaxtyping")
for p in sorted(Path(sys.argv[1]).glob("tests/golden/*.ss")):
    src = p.read_text(encoding="utf-8")
    prog = check_program(src, str(p), [])
    sources = dict(prog.sources)
    sources.setdefault(str(p), src)
    out[str(p)] = render(prog.diagnostics, sources, "full")
print(json.dumps(out))
"""


def _outputs(hash_seed: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT)], env=env, check=True,
                          capture_output=True, text=True, timeout=600)
    return json.loads(done.stdout)


def test_generated_code_and_diagnostics_do_not_depend_on_the_hash_seed():
    a, b = _outputs("1"), _outputs("2")
    assert any("examples" in k and v for k, v in a.items())
    assert sum(k.endswith(".pyi") and "def " in v for k, v in a.items()) > 10
    assert sum("golden" in k for k in a) > 50
    differ = sorted(k for k in a if a[k] != b.get(k))
    assert not differ, f"output differs between two processes for: {differ}"
