"""MkDocs hooks: the generated reference pages (built-ins, error index, command line)
are made from the sources on every build, so they can't fall out of date."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ss_reference_pages as reference  # noqa: E402


def on_files(files, config, **_):
    for name, make in reference.PAGES.items():
        files.append(File.generated(config, f"reference/{name}", content=make()))
    return files
