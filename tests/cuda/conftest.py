"""transformers copies a folder's remote code into ``$HF_HOME/modules``: pointed at a
temporary folder before transformers is imported, as for ``tests/hf``."""

from __future__ import annotations

import os
import tempfile

_HOME = tempfile.mkdtemp(prefix="shapescript-cuda-hf-home-")
os.environ.setdefault("HF_HOME", _HOME)
os.environ.setdefault("HF_MODULES_CACHE", os.path.join(os.environ["HF_HOME"], "modules"))
os.environ["HF_HUB_OFFLINE"] = "1"
