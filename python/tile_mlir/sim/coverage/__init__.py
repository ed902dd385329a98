"""tile-sim's coverage of the PTX ISA, derived from tile-sim itself (docs/emulator.md §13): the
table of forms (forms.json, table.py), the tests that check them (tests.py) and the generated
section of the docs (markdown.py)."""

from .table import DATA, DECLS, Row, by_family, decode_check, load, rows, summary

__all__ = ["DATA", "DECLS", "Row", "by_family", "decode_check", "load", "rows", "summary"]
