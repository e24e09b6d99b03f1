"""The checker: names, sizes, shapes, domains and the export rules."""
