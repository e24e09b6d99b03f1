"""Re-checking a file as it is edited, for editors: ``IncrementalChecker``.

An editor sends the whole text after every keystroke; checking a 1,000-line file from
scratch takes longer than a keystroke should. So this keeps, between two versions of
one file:

* the parse of each top-level *chunk* (a declaration with the comment lines right above
  it: a line that starts in column 1 outside any bracket starts one, as the parser
  splits a file). A chunk whose text is unchanged keeps its nodes; one below the edit
  keeps them too, its spans moved down or up by the lines the edit added or removed;
  only the edited chunks are parsed again;
* the module's environment (dims, models, signatures), while every declaration other
  than a ``fn``'s body is unchanged;
* each function body's check (types, resolutions, diagnostics), while the body's nodes
  are the ones it was checked with.

So an edit inside one function's body parses and checks that function only. An edit to
a dim, a signature, a model, an import (anything the other bodies depend on), or one
that leaves a declaration unparsable, checks the file afresh, from the chunks.

The result is the same ``Program`` that ``check_program`` gives for the text, and the
same diagnostics, sorted the same way. Modules the file imports are checked when the
file is checked afresh, and kept while their texts don't change: an editor passes
``overlay``, the texts of the files it has open with unsaved edits, and a module's
text is its overlay, else its file on disk (a module only open in the editor, never
saved, is found where its file would be). Moving spans is the one place
where the syntax tree is changed after parsing: only nodes this checker parsed itself,
and only their positions.

The parts, one module each: ``chunks.py`` (a file's top-level chunks), ``skeleton.py``
(what the other bodies see of the declarations), ``spans.py`` (moving the positions of
kept nodes and records), ``imported.py`` (imported modules, checked once while their
texts don't change) and ``checker.py`` (``IncrementalChecker``, which puts them together).
"""

from __future__ import annotations

from shapescript.incremental.checker import CheckCancelled, IncrementalChecker
from shapescript.incremental.chunks import split_chunks
from shapescript.incremental.imported import Overlay

__all__ = ["CheckCancelled", "IncrementalChecker", "Overlay", "split_chunks"]
