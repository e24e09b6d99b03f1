"""A pattern's keyword size on a generic axis (``reduce(x, a b -> a, sum, a=2)`` with
``x: [p q]``) lets a call through only when ``p`` is 2: the exported program takes ``p``
as static (torch.export refuses a dynamic dim that a check specialises), and every other
axis stays dynamic."""

from __future__ import annotations

import pytest
import torch

from shapescript_export import export

PINNED = '''\
fn rows(x: [p q]) -> [p] = reduce(x, a b -> a, sum, a=2)
fn grouped(x: [p q]) -> [q] = reduce(x, (a two) b -> b, sum, a=3, two=2)
'''

# `wide` is false: the branch that pins `p` never runs, so `p` stays dynamic.
DEAD_PIN = '''\
const wide = false

fn cols(x: [p q]) -> [q]:
    if wide:
        return reduce(x, a b -> b, sum, a=2)
    return reduce(x, a b -> b, sum)
'''


def _write(tmp_path, text):
    path = tmp_path / "pins.ss"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("fn,pinned,dynamic,expect,refused", [
    # `a=2` on `p`: p is 2, q stays dynamic.
    ("rows", 2, (5, 7), lambda x: x.sum(1), (3, 5)),
    # `(a two)` with `a=3, two=2`: the whole axis is 6.
    ("grouped", 6, (4, 9), lambda x: x.sum(0), (4, 4)),
])
def test_a_pinned_generic_exports_static_and_the_rest_stays_dynamic(
        tmp_path, fn, pinned, dynamic, expect, refused):
    run = export(_write(tmp_path, PINNED), fn).module()
    for q in dynamic:
        x = torch.randn(pinned, q)
        torch.testing.assert_close(run(x), expect(x))
    with pytest.raises(Exception, match=f"== {pinned}"):
        run(torch.randn(*refused))


def test_a_pin_in_a_branch_a_constant_rules_out_fixes_nothing(tmp_path):
    run = export(_write(tmp_path, DEAD_PIN), "cols").module()
    for p in (2, 3, 5):
        x = torch.randn(p, 4)
        torch.testing.assert_close(run(x), x.sum(0))
