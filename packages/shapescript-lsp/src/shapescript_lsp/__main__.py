"""``python -m shapescript_lsp``: the language server over stdio."""

from shapescript_lsp.server import main

if __name__ == "__main__":
    main()
