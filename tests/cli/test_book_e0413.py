"""Book chapter 10: `shapescript check untyped.ss`, character for character."""

import subprocess
import sys

UNTYPED = '''import python torch

dim D = 32
dim C = 4

fn saved_head() -> [D C]:
    return torch.load("weights.pt")[5]
'''

BOOK = '''error[E0413]: the shape of this Python value is unknown
 --> untyped.ss:7:12
  |
7 |     return torch.load("weights.pt")[5]
  |            ^^^^^^^^^^^^^^^^^^^^^^^^^^^ the return type is `[D C]`
  |
  = help: assert its shape with `as [D C]`

For more information about E0413, run `shapescript explain E0413`.
'''


def test_check_untyped_prints_the_books_diagnostic(tmp_path):
    (tmp_path / "untyped.ss").write_text(UNTYPED)
    r = subprocess.run([sys.executable, "-m", "shapescript_cli", "check", "untyped.ss"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120,
                       env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"})
    assert r.returncode == 1
    assert r.stdout == BOOK
    assert r.stderr == ""
