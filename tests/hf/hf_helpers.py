"""Helpers of the Hugging Face tests (fixtures: ``conftest``)."""

from __future__ import annotations

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LLAMA = str(EXAMPLES / "llama.ss")
GPT2 = str(EXAMPLES / "gpt2.ss")


def positions(ids):
    import torch

    return torch.arange(ids.shape[1]).expand(ids.shape[0], ids.shape[1])


def greedy(src, model, ids, steps: int):
    """Greedy decoding by the source's own forward function, from the start each step."""
    import torch

    for _ in range(steps):
        logits = src.run(model, ids, positions(ids))
        ids = torch.cat([ids, logits[:, -1].argmax(-1, keepdim=True)], 1)
    return ids
