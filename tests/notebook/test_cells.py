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
    assert err.evalue.startswith(f"cell{cells[1].execution_count}.ss:"), err.evalue
    assert _text(cells[7]).strip() == "torch.Size([3, 4])"
    # The bad cell: the book's layout as text, and as HTML for Jupyter.
    (shown,) = [o for o in cells[8].outputs if o.output_type == "display_data"]
    text = shown.data["text/plain"]
    # Named by the number Jupyter shows beside the cell (In [9]).
    assert cells[8].execution_count == 9
    assert "error[E0401]" in text and " --> cell9.ss:2:12" in text and "2 |     return x" in text
    assert "For more information about E0401, run `shapescript explain E0401`." in text
    html = shown.data["text/html"]
    assert html.startswith("<pre") and "E0401" in html
    assert _text(cells[9]).strip() == "False False"
    (shown,) = [o for o in cells[11].outputs if o.output_type == "display_data"]
    assert "error[E1701]" in shown.data["text/plain"]
    assert not cells[12].outputs, _text(cells[12])
    assert _text(cells[13]).strip() == "type torch.Size([5, 4])"


def test_missing_extra_names_the_install(monkeypatch: pytest.MonkeyPatch):
    import shapescript
    import shapescript.plugins

    # The cells are found through their entry point alone: without it, the module that
    # is still importable here is not used.
    real = shapescript.plugins.entry_points
    monkeypatch.setattr(shapescript.plugins, "entry_points",
                        lambda group: {} if group == shapescript.plugins.NOTEBOOK else real(group))
    with pytest.raises(ImportError, match=r"pip install 'shapescript\[lsp\]'"):
        shapescript.load_ipython_extension(object())


def test_the_cells_come_through_their_entry_point():
    import shapescript.plugins
    import shapescript_notebook

    cells = shapescript.plugins.load_entry_point(shapescript.plugins.NOTEBOOK, "cells")
    assert cells is shapescript_notebook


@pytest.fixture
def ipython():
    """A real IPython shell, in this process, with its history in memory."""
    interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    shell = interactiveshell.InteractiveShell.instance(config=config)
    yield shell
    interactiveshell.InteractiveShell.clear_instance()


def test_a_cell_is_named_by_the_number_ipython_shows(ipython, capsys, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch):
    pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)

    def run(cell: str):
        result = ipython.run_cell(cell, store_history=True)
        return result, capsys.readouterr().out

    run("%load_ext shapescript")
    run("import torch")
    result, shown = run("%%shapescript\ndim D = 4\nfn bad(x: [b D]) -> [b]:\n    return x\n")
    assert result.execution_count == 3                      # In [3]
    assert " --> cell3.ss:3:12" in shown, shown
    result, _ = run("%%shapescript\ndim E = 4\nfn good(x: [b E]) -> [b E] = x\n")
    assert result.execution_count == 4 and result.success
    result, _ = run("good(torch.zeros(2, 3))")
    assert str(result.error_in_exec).startswith("cell4.ss:2:9: x: expected [b E]"), \
        result.error_in_exec
