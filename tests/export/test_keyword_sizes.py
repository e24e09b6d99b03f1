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


def test_a_generic_pinned_by_a_keyword_exports_static_and_the_rest_stays_dynamic(tmp_path):
    run = export(_write(tmp_path, PINNED), "rows").module()
    for q in (5, 7):
        x = torch.randn(2, q)
        torch.testing.assert_close(run(x), x.sum(1))
    with pytest.raises(Exception, match="== 2"):
        run(torch.randn(3, 5))


def test_a_pin_through_a_group_fixes_the_whole_axis(tmp_path):
    run = export(_write(tmp_path, PINNED), "grouped").module()
    for q in (4, 9):
        x = torch.randn(6, q)
        torch.testing.assert_close(run(x), x.sum(0))
    with pytest.raises(Exception, match="== 6"):
        run(torch.randn(4, 4))


def test_a_pin_in_a_branch_a_constant_rules_out_fixes_nothing(tmp_path):
    run = export(_write(tmp_path, DEAD_PIN), "cols").module()
    for p in (2, 3, 5):
        x = torch.randn(p, 4)
        torch.testing.assert_close(run(x), x.sum(0))
