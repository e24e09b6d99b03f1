"""``from_host``: what an ``as`` on a Python value moves to the program's device, and
what it leaves where it is. The ``meta`` device stands in for a GPU."""

from __future__ import annotations

import torch

from shapescript import rt


def test_nothing_moves_without_a_device_or_on_the_cpu():
    x = torch.ones(3)
    before = rt.host_transfers()
    assert rt.from_host(x) is x                  # no device declared anywhere
    rt.devices("cpu")
    assert rt.from_host(x) is x
    assert rt.host_transfers() == before


def test_a_host_tensor_moves_and_is_counted():
    rt.devices("meta")
    moves, size = rt.host_transfers()
    y = rt.from_host(torch.ones(2, 3, dtype=torch.float16))
    assert y.device.type == "meta" and y.dtype == torch.float16 and y.shape == (2, 3)
    assert rt.host_transfers() == (moves + 1, size + 12)


def test_a_tuple_or_list_keeps_its_kind_and_its_other_items():
    rt.devices("meta")
    moves, _ = rt.host_transfers()
    t = rt.from_host((torch.zeros(2), 3, "a"))
    assert type(t) is tuple and t[0].device.type == "meta" and t[1:] == (3, "a")
    lst = rt.from_host([torch.zeros(1), torch.zeros(1)])
    assert type(lst) is list and [v.device.type for v in lst] == ["meta", "meta"]
    assert rt.host_transfers()[0] == moves + 3


def test_a_tensor_already_off_the_cpu_is_left_for_the_check():
    rt.devices("meta")
    x = torch.ones(2, device="meta")
    moves, _ = rt.host_transfers()
    assert rt.from_host(x) is x
    assert rt.host_transfers()[0] == moves


def test_device_problem_says_why():
    assert rt.device_problem("cpu") is None
    assert rt.device_problem() is None           # no device in force
    if not torch.cuda.is_available():
        assert rt.device_problem("cuda").startswith("CUDA is not available here (")
    else:
        count = torch.cuda.device_count()
        assert rt.device_problem(f"cuda[{count}]").startswith(f"there is no cuda:{count}: ")
