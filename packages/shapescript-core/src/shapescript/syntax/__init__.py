"""Syntax: the grammar, the parser and the syntax tree."""
