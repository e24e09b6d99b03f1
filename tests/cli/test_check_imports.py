"""``shapescript check`` imports neither torch nor any exporter (house style rule 1).

Runs the real command, with the real compiler, in a fresh interpreter, and looks at
``sys.modules`` afterwards. ``explain`` and ``--help`` are held to the same rule.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

HEAVY = ("torch", "shapescript_export", "shapescript_hf", "shapescript_gguf", "transformers")

PROBE = textwrap.dedent("""
    import json, sys
    from shapescript_cli.main import main
    try:
        main(sys.argv[2:], prog_name="shapescript")
        code = 0
    except SystemExit as exc:
        code = exc.code
    heavy = sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r})
    with open(sys.argv[1], "w") as f:
        json.dump({{"exit": code, "heavy": heavy}}, f)
""").format(heavy=set(HEAVY))


def probe(tmp_path, *args: str) -> dict:
    report = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-c", PROBE, str(report), *args],
                          capture_output=True, text=True, cwd=tmp_path)
    assert report.exists(), proc.stderr
    result = json.loads(report.read_text())
    result["stdout"], result["stderr"] = proc.stdout, proc.stderr
    return result


def test_check_imports_neither_torch_nor_an_exporter(tmp_path):
    src = tmp_path / "model.ss"
    src.write_text(
        "dim D = 32\n\n"
        "fn pool(x: [b n D]) -> [b D] = mean(x, over=n)\n\n"
        "export fn head(x: [b n D], w: [D 4]) -> [b 4] = pool(x) @ w\n"
    )
    result = probe(tmp_path, "check", str(src))
    # The real checker ran (0: clean, 1: errors), not an internal error (3).
    assert result["exit"] in (0, 1), result["stdout"] + result["stderr"]
    assert result["heavy"] == []


def test_explain_and_help_import_nothing_heavy(tmp_path):
    for args in (["explain", "E0413"], ["explain", "--list"], ["--help"]):
        result = probe(tmp_path, *args)
        assert result["exit"] == 0, result["stderr"]
        assert result["heavy"] == []
