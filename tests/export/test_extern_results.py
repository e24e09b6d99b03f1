"""A function that calls an ``extern fn`` the program declares exports: the extern's
result is checked against its declared type as an ``as`` is (while tracing, and in the
exported program), so a Python function that returns another shape is caught."""

from __future__ import annotations

import pytest
import torch

from shapescript_export import export

OWN_EXTERN = '''\
extern fn erf(x: [...] Float) -> [...] Float = "torch.special.erf"

fn forward(x: [b n]) -> [b n]:
    return erf(x) * 2.0
'''

WRONG_SHAPE = '''\
extern fn flat(x: [b n]) -> [b n] = "torch.flatten"

fn forward(x: [b n]) -> [b n]:
    return flat(x) + x
'''


def test_a_function_calling_its_own_extern_exports_and_runs(tmp_path):
    path = tmp_path / "own.ss"
    path.write_text(OWN_EXTERN)
    ep = export(str(path), "forward")
    x = torch.randn(3, 5)
    torch.testing.assert_close(ep.module()(x), torch.special.erf(x) * 2.0)
    x = torch.randn(4, 7)  # other sizes: the sizes stayed dynamic
    torch.testing.assert_close(ep.module()(x), torch.special.erf(x) * 2.0)


def test_an_extern_returning_another_shape_is_caught_while_tracing(tmp_path):
    path = tmp_path / "wrong.ss"
    path.write_text(WRONG_SHAPE)
    with pytest.raises(Exception, match="result of flat"):
        export(str(path), "forward")
