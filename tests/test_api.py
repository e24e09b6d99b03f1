"""The core's public API for plugins: every name resolves, importing it is light, and
the tables that generated code carries are copies of the one vocabulary."""

from __future__ import annotations

import subprocess
import sys

import shapescript.api as api
from shapescript import vocab


def test_every_public_name_resolves():
    missing = [n for n in api.__all__ if getattr(api, n, None) is None]
    assert missing == []
    assert sorted(dir(api)) == sorted(api.__all__)


def test_importing_the_api_imports_neither_torch_nor_the_checker():
    code = ("import sys, shapescript.api\n"
            "print(sorted(m for m in ('torch', 'shapescript.check.body', 'shapescript_export') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_standalone_runtime_carries_the_vocabulary():
    from shapescript.rt.standalone import helper_source

    ns: dict = {}
    exec(helper_source(["domain_problem", "dtype_name"]), ns)
    assert ns["_DOMAIN_BOUNDS"] == vocab.DOMAIN_BOUNDS
    assert "from shapescript" not in helper_source(["domain_problem", "dtype_name"])


def test_traced_helpers_carry_the_domain_bounds():
    from shapescript.codegen.traced import traced_helpers_source

    ns: dict = {}
    exec(traced_helpers_source(), ns)
    assert ns["_SS_EX_BOUNDS"] == vocab.DOMAIN_BOUNDS


def test_export_step_carries_the_dtypes_and_the_atomic_writer(tmp_path):
    import torch
    from shapescript_export.program import step_helpers_source

    source = step_helpers_source()
    assert "shapescript" not in "".join(line for line in source.splitlines()
                                        if line.startswith(("import", "from")))
    ns: dict = {"_ss_torch": torch}
    exec(source, ns)
    assert ns["_SS_EX_TORCH_NAMES"] == vocab.TORCH_DTYPE_NAMES
    assert ns["_SS_EX_DTYPES"]["bf16"] is torch.bfloat16 and ns["_SS_EX_DTYPES"]["Int"] is torch.int64
    target = tmp_path / "x.bin"
    ns["_ss_ex_atomic_write_with"](str(target), lambda p: open(p, "wb").write(b"ok"))
    assert target.read_bytes() == b"ok" and [p.name for p in tmp_path.iterdir()] == ["x.bin"]


def test_devices_are_read_one_way():
    from shapescript.rt.device import parse_device

    assert vocab.device_name("cuda[1]") == "cuda:1" == str(parse_device("cuda[1]"))
