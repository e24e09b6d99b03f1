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


def test_static_tools_see_each_name_from_the_home_the_loader_uses():
    # The `if TYPE_CHECKING:` imports are what type checkers and linters read; `_HOMES`
    # is what `__getattr__` loads: one drifting from the other would type a name wrongly.
    import ast as pyast
    from pathlib import Path

    tree = pyast.parse(Path(api.__file__).read_text(encoding="utf-8"))
    block = next(n for n in tree.body if isinstance(n, pyast.If)
                 and isinstance(n.test, pyast.Name) and n.test.id == "TYPE_CHECKING"
                 and any(isinstance(s, pyast.ImportFrom) and s.module == "shapescript.compiler"
                         for s in n.body))
    static = {}
    for stmt in block.body:
        assert isinstance(stmt, pyast.ImportFrom)
        for alias in stmt.names:
            assert alias.asname == alias.name  # the re-export idiom: `X as X`
            static[alias.name] = f"{stmt.module}.{alias.name}"
    lazy = {name: f"{home}.{name}" for name, home in api._HOMES.items()}
    lazy.update(vocab="shapescript.vocab", error_codes="shapescript.error_codes",
                distributed="shapescript.rt.distributed")
    assert static == lazy
    assert set(api.__all__) <= set(static) | {n for n in dir(api) if not n.startswith("_")}
