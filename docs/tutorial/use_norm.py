"""Calls norm.ss from Python: once with the right shape, once with the wrong one."""
import shapescript
import torch

shapescript.install()
import norm  # norm.ss, compiled and cached

y = norm.norm(torch.randn(2, 3, 8))
print("ok:", tuple(y.shape))
try:
    norm.norm(torch.randn(2, 3, 5))
except shapescript.ShapeError as e:
    print("ShapeError:", e)
