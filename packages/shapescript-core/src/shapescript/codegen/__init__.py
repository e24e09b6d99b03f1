"""Code generation: checked programs to Python source (``module.py``), and the mode for
tracing (``traced.py``) that every exporter builds on."""
