"""Fixtures of the language-server tests (helpers: ``lsp_helpers``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "shapescript_lsp"]))
async def client(lsp_client: LanguageClient, tmp_path: Path):
    """A client talking to ``python -m shapescript_lsp``, as VS Code would, rooted at
    ``tmp_path``. A test module that needs other capabilities defines its own."""
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
        root_uri=tmp_path.as_uri()))
    yield
    await lsp_client.shutdown_session()
