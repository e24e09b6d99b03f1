"""transformers' own tensor parallelism on a layered folder: two processes, gloo on the
CPU, `from_pretrained(..., tp_plan="auto")` sharding each projection by the folder's
`base_model_tp_plan`; the logits are one process's. A degree outside the ones the export
proved is refused by `shapescript check --vllm --tp` before anything loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from hf_helpers import EXAMPLES

torch = pytest.importorskip("torch")
pytest.importorskip("accelerate")

# Each rank loads the folder sharded, checks that its projections are halves, and rank 0
# saves the logits; without torchrun, one process saves them whole.
SCRIPT = textwrap.dedent('''
    import os, sys
    import torch
    from transformers import AutoModelForCausalLM

    folder, out = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    ids = torch.randint(0, 64, (2, 11))
    ranks = int(os.environ.get("WORLD_SIZE", "1"))
    kwargs = {"tp_plan": "auto"} if ranks > 1 else {}
    model = AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True,
                                                 dtype=torch.float32, **kwargs)
    layer = model.model.layers[0]
    local = lambda w: w.to_local() if hasattr(w, "to_local") else w
    shapes = [tuple(local(m.weight).shape) for m in (layer.self_attn.q_proj,
              layer.self_attn.k_proj, layer.self_attn.o_proj, layer.mlp.gate_proj,
              layer.mlp.down_proj)]
    with torch.no_grad():
        logits = model(input_ids=ids, use_cache=False).logits
    rank = int(os.environ.get("RANK", "0"))
    torch.save({"logits": logits, "shapes": shapes}, f"{out}.{ranks}.{rank}.pt")
''')


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["OMP_NUM_THREADS"] = "1"
    return env


@pytest.mark.slow
def test_two_ranks_give_one_process_logits(folders, tmp_path):
    folder = folders("llama")
    config = json.loads(open(os.path.join(folder, "config.json")).read())
    assert config["shapescript"]["tensor_parallel"] == [1, 2]
    script = tmp_path / "tp.py"
    script.write_text(SCRIPT)
    out = str(tmp_path / "logits")
    one = subprocess.run([sys.executable, str(script), folder, out], capture_output=True,
                         text=True, timeout=240, env=_env())
    assert one.returncode == 0, one.stderr
    two = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node",
                          "2", str(script), folder, out], capture_output=True, text=True,
                         timeout=240, env=_env(), cwd=tmp_path)
    assert two.returncode == 0, two.stderr[-3000:]
    whole = torch.load(f"{out}.1.0.pt")
    for rank in (0, 1):
        part = torch.load(f"{out}.2.{rank}.pt")
        # q: 4 heads of 16, k: 2 of 16, o: rowwise; gate: F = 128; down: rowwise.
        assert part["shapes"] == [(32, 64), (16, 64), (64, 32), (64, 64), (64, 64)]
        assert whole["shapes"] == [(64, 64), (32, 64), (64, 64), (128, 64), (64, 128)]
        assert (part["logits"] - whole["logits"]).abs().max().item() <= 1e-5


def _check(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shapescript_cli", "check", *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd, env=_env())


def test_check_refuses_a_degree_outside_the_proven_ones(tmp_path):
    llama = str(EXAMPLES / "llama.ss")
    ok = _check("--vllm", "--tp", "2", llama, cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = _check("--vllm", "--tp", "4", llama, "--format", "concise", cwd=tmp_path)
    assert bad.returncode == 1
    # Hkv = 2 key and value heads don't split in 4; nor does H = 4 query heads in 3.
    assert "E3309" in bad.stdout and "Hkv" in bad.stdout, bad.stdout
    three = _check("--vllm", "--tp", "3", llama, "--color", "never", cwd=tmp_path)
    assert three.returncode == 1
    out = three.stdout
    assert "llama.ss:44:15" in out and "`wq: [L H*Dh D]` splits along H = 4" in out, out
    assert "the legal degrees are 1, 2" in out and "(V = 64)" in out, out
