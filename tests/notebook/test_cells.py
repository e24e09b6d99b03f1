"""`%%shapescript` cells in a real notebook: nbclient runs it in an ipykernel."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

SPOTTER = Path(__file__).resolve().parents[2] / "examples" / "spotter" / "spotter.ss"

WEIGHTS = """\
import torch
g = torch.Generator().manual_seed(0)
w = [torch.randn(16, 32, generator=g), torch.randn(2, 16, 64, generator=g),
     torch.randn(2, 64, 16, generator=g), torch.randn(2, 32, 64, generator=g),
     torch.randn(2, 64, 32, generator=g), torch.randn(32, 4, generator=g)]
img = torch.randint(0, 256, (8, 1, 16, 16), dtype=torch.uint8, generator=g)
"""


def _run(cells: list[tuple[str, str]], tmp_path: Path) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) if kind == "code" else
                nbformat.v4.new_markdown_cell(src) for kind, src in cells]
    client = NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    return nb


def _text(cell) -> str:
    out = []
    for o in cell.outputs:
        if o.output_type == "stream":
            out.append(o.text)
        elif o.output_type in ("execute_result", "display_data"):
            out.append(o.data.get("text/plain", ""))
        elif o.output_type == "error":
            out.append(f"{o.ename}: {o.evalue}")
    return "".join(out)


@pytest.mark.slow
def test_spotter_in_a_notebook(tmp_path: Path):
    nb = _run([
        ("code", "%load_ext shapescript"),
        ("code", "%%shapescript\n" + SPOTTER.read_text()),
        ("code", WEIGHTS),
        # The spotter's functions, called from Python with real tensors.
        ("code", "pred = predict(img, *w)\nprint(pred.shape, pred.dtype, D, type(forward).__name__)"),
        ("code", "print(per_class_accuracy(pred, pred).tolist())"),
        # A wrong tensor: 15×15 images.
        ("code", "predict(torch.zeros(8, 1, 15, 15, dtype=torch.uint8), *w)"),
        # A notebook variable is a Python value: typed with `as`.
        ("code", "%%shapescript\nfn head_saved(x: [b D]) -> [b C] = x @ (w[5] as [D C])"),
        ("code", "print(head_saved(torch.ones(3, 32)).shape)"),
        # A bad cell: its diagnostics, and nothing defined.
        ("code", "%%shapescript\nfn bad(x: [b D]) -> [b C]:\n    return x\n\nfn fine(x: [b D]) -> [b D] = x"),
        ("code", "print('bad' in globals(), 'fine' in globals())"),
        # A notebook variable in an export fn is E1701.
        ("code", "scale = 2.0"),
        ("code", "%%shapescript\nexport fn scaled(x: [b D]) -> [b D] = x * scale"),
        # A model is a class; the earlier cells' dims keep their types here.
        ("code", "%%shapescript\nmodel Head:\n    param w: [D C] = normal(std=0.02)\n\n"
                 "fn score(m: Head, x: [b D]) -> [b C] = x @ m.w"),
        ("code", "print(type(Head).__name__, score(Head.init(seed=0), torch.ones(5, 32)).shape)"),
    ], tmp_path)
    cells = nb.cells
    assert not [o for o in cells[0].outputs + cells[1].outputs + cells[2].outputs], \
        [_text(c) for c in cells[:3]]
    assert _text(cells[3]).strip() == "torch.Size([8]) torch.int64 32 function"
    assert len(eval(_text(cells[4]))) == 4  # one accuracy per class
    (err,) = [o for o in cells[5].outputs if o.output_type == "error"]
    assert err.ename == "ShapeError"
    assert "expected" in err.evalue and "(8, 1, 15, 15)" in err.evalue
    assert _text(cells[7]).strip() == "torch.Size([3, 4])"
    # The bad cell: the book's layout as text, and as HTML for Jupyter.
    (shown,) = [o for o in cells[8].outputs if o.output_type == "display_data"]
    text = shown.data["text/plain"]
    assert "error[E0401]" in text and " --> cell" in text and "2 |     return x" in text
    assert "For more information about E0401, run `shapescript explain E0401`." in text
    html = shown.data["text/html"]
    assert html.startswith("<pre") and "E0401" in html
    assert _text(cells[9]).strip() == "False False"
    (shown,) = [o for o in cells[11].outputs if o.output_type == "display_data"]
    assert "error[E1701]" in shown.data["text/plain"]
    assert not cells[12].outputs, _text(cells[12])
    assert _text(cells[13]).strip() == "type torch.Size([5, 4])"


def test_missing_extra_names_the_install(monkeypatch: pytest.MonkeyPatch):
    import sys

    import shapescript

    monkeypatch.setitem(sys.modules, "shapescript_notebook", None)
    with pytest.raises(ImportError, match=r"pip install 'shapescript\[lsp\]'"):
        shapescript.load_ipython_extension(object())
