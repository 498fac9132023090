"""TSV tables (`.tsv`, `.tab`): a source and a sink. Plain TSV: no quoting, a field never
holds a tab or a line break (a de-identified value that would is a failure naming the line);
otherwise as CSV (formats/csv.py)."""

from pathlib import Path

from .base import Format
from .csv import DelimitedTable
from .table import Table


def open_table(path: Path, *, sheet=None, encoding: str = "utf-8") -> Table:
    return DelimitedTable(path, "tsv", encoding)


FORMAT = Format("tsv", "table", (".tsv", ".tab"), open_table=open_table)
