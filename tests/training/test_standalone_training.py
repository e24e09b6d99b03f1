"""A training program built ``--standalone`` (DECISIONS §25) runs with torch, einops and
safetensors alone: its models, optimizers, datasets, reports and checkpoints inlined."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from shapescript.compiler import compile_source

SRC = '''
dim D = 4
dim C = 3

## A linear classifier.
model Line:
    param w: [D C] = normal(std=0.1)
    param b: [C]

fn loss(m: Line, x: [n D], y: [n] Index[C]) -> [] NonNeg:
    return cross_entropy(x @ m.w + m.b, y, over=C)

fn fit(x: [n D], y: [n] Index[C], path: str) -> Line:
    m = Line.init(seed=0)
    opt = adamw(m, lr=warmup(2, cosine(20, lr=0.1)))
    step = 0
    for epoch in 0..3:
        for xb, yb in batches(shuffle((x, y), seed=epoch), size=8):
            with Train:
                l, g = value_and_grad(loss, m, xb, yb)
            update(m, clip_norm(g, max=1.0), opt)
            report(step, loss=l)
            step = step + 1
    m.b = zeros[C]
    save(path, m)
    return load(path, Line)
'''

SCRIPT = textwrap.dedent('''
    import importlib.abc, sys
    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "shapescript" or name.startswith("shapescript."):
                raise ImportError("blocked: " + name)
    sys.meta_path.insert(0, Block())
    import torch
    ns = {"__name__": "standalone_training"}
    exec(compile(sys.stdin.read(), "line.ss", "exec"), ns)
    assert "shapescript" not in sys.modules
    g = torch.Generator().manual_seed(0)
    x = torch.randn(24, 4, generator=g)
    y = torch.randint(0, 3, (24,), generator=g)
    m = ns["fit"](x, y, sys.argv[1])
    assert isinstance(m, torch.nn.Module) and type(m).__name__ == "Line"
    assert torch.equal(m.b, torch.zeros(3))
    print("loaded", tuple(m.w.shape))
''')


def test_a_standalone_training_program_runs_without_shapescript(tmp_path):
    out = compile_source(SRC, str(tmp_path / "line.ss"), standalone=True)
    assert out.python is not None, out.diagnostics
    assert "shapescript" not in out.python.splitlines()[0]
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "ckpt.safetensors")],
                          input=out.python, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("step 0: loss ") and lines[8].startswith("step 8: loss ")
    assert lines[-1] == "loaded (4, 3)"
