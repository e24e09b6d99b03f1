"""A module that exists only as an editor's buffer (a new file, never saved): the
``IncrementalChecker``'s overlay is where imports look for it, in the order they look
for files on disk, and a check that looked for it and found nothing sees it appear."""

from __future__ import annotations

from pathlib import Path

from shapescript.api import IncrementalChecker, check_program

NEWMOD = "dim D = 8\n\n## A block.\nfn block(x: [b D]) -> [b D] = x * 2.0\n"
# Another `block`, which drops an axis: `f` below returns the wrong shape with it.
DROPS = "dim D = 8\n\nfn block(x: [b D]) -> [b] = sum(x, over=D)\n"
FROM = "from newmod import block, D\n\nfn f(x: [b D]) -> [b D]:\n    y = block(x)\n    return y\n"
IMPORT = "import newmod\n\nfn f(x: [b newmod.D]) -> [b newmod.D]:\n    return newmod.block(x)\n"


def _codes(program) -> list[str]:
    return [d.code for d in program.diagnostics]


def test_a_module_only_in_the_overlay_is_imported_until_it_goes(tmp_path: Path):
    main = tmp_path / "main.ss"
    newmod = str(tmp_path / "newmod.ss")
    unsaved: dict[str, str] = {}
    for text in (FROM, IMPORT):
        ic = IncrementalChecker(str(main), overlay=unsaved.get)
        assert "E0204" in _codes(ic.update(text))
        assert ic.depends_on(newmod)  # looked for there
        unsaved[newmod] = NEWMOD  # the new file, open in the editor
        p = ic.update(text)  # the same text: checked again, finding the buffer
        assert ic.last == "full" and p.ok, _codes(p)
        assert p.sources[newmod] == NEWMOD and ic.depends_on(newmod)
        # An edit inside the importer's body keeps the buffer's module.
        p = ic.update(text.replace("(x)\n", "(x) \n"))
        assert ic.last == "incremental" and p.ok
        # The buffer is closed without saving: the module is missing again.
        del unsaved[newmod]
        p = ic.update(text)
        assert ic.last == "full" and "E0204" in _codes(p)
        # A fresh compilation (the command line) never sees the editor's buffers.
        unsaved[newmod] = NEWMOD
        assert "E0204" in _codes(check_program(text, str(main)))
        del unsaved[newmod]
    assert not Path(newmod).exists()


def test_a_buffer_only_module_is_found_in_the_search_order_of_files(tmp_path: Path):
    lib = tmp_path / "lib"
    lib.mkdir()
    main = tmp_path / "main.ss"
    unsaved: dict[str, str] = {}
    # On disk, only later on the search path: a `block` that drops an axis.
    (lib / "newmod.ss").write_text(DROPS)
    ic = IncrementalChecker(str(main), search=[str(lib)], overlay=unsaved.get)
    assert _codes(ic.update(FROM)) == ["E0402"]
    # A buffer next to the importer comes first, as a file there would.
    unsaved[str(tmp_path / "newmod.ss")] = NEWMOD
    assert ic.update(FROM).ok
    del unsaved[str(tmp_path / "newmod.ss")]
    assert _codes(ic.update(FROM)) == ["E0402"]
    # A buffer later on the search path comes after a file next to the importer.
    (lib / "newmod.ss").unlink()
    (tmp_path / "newmod.ss").write_text(NEWMOD)
    unsaved[str(lib / "newmod.ss")] = DROPS
    ic = IncrementalChecker(str(main), search=[str(lib)], overlay=unsaved.get)
    assert ic.update(FROM).ok


def test_a_module_imported_by_an_import_sees_a_buffer_appear(tmp_path: Path):
    # layers.ss, on disk, imports newmod, which is only a buffer: the shared check of
    # layers.ss must not keep its "not found" once the buffer is there.
    (tmp_path / "layers.ss").write_text("from newmod import block\n\n"
                                        "fn twice(x: [b n]) -> [b n] = block(block(x))\n")
    main = tmp_path / "main.ss"
    text = "from layers import twice\n\nfn f(x: [b n]) -> [b n] = twice(x)\n"
    generic = "fn block(x: [b n]) -> [b n] = x * 2.0\n"
    unsaved: dict[str, str] = {}
    ic = IncrementalChecker(str(main), overlay=unsaved.get)
    p = ic.update(text)
    assert "E0204" in _codes(p)
    assert any(d.code == "E0204" and d.file.endswith("layers.ss") for d in p.diagnostics)
    unsaved[str(tmp_path / "newmod.ss")] = generic
    assert ic.update(text).ok
    # Another file's checker gets the shared check of layers.ss with the buffer's module.
    other = IncrementalChecker(str(tmp_path / "other.ss"), overlay=unsaved.get)
    assert other.update(text).ok
    del unsaved[str(tmp_path / "newmod.ss")]
    assert "E0204" in _codes(ic.update(text))
