"""Reloads the trained probe from its checkpoint and runs the exported program with
torch alone: both give the same scores."""
import shapescript
import torch

shapescript.install()
import probe  # probe.ss, compiled and cached

m = shapescript.load("probe.safetensors", probe.Probe)
x = torch.randn(5, 8)
expected = probe.scores(x, m.w)

program = torch.export.load("probe.pt2").module()
got = program(x, m.w.detach())
print("scores:", tuple(got.shape), "same as probe.scores:", torch.allclose(got, expected))
