"""The registry of formats: each module of MODULES is a format (its `FORMAT`: a source and its
sink, formats/base.py). A new format is a module with a `FORMAT` and a line here.

Lookups: `get(name)`, `find(path)` (by the file's suffix, any case), `document_kind(path)` and
`table_format(path)` (the name of a document or table format, else None; a `.jsonl` file holds
reports and is a table only when its columns are named), `describe()` (what an input may be).
"""

from pathlib import Path

from . import csv, docx, fhir, folder, hl7v2, jsonl, markdown, parquet, pdf, rtf, text, tsv, xlsx
from .base import Format

# in the order messages list them
MODULES = (text, folder, jsonl, csv, tsv, xlsx, parquet, docx, pdf, rtf, markdown, fhir, hl7v2)
FORMATS: dict[str, Format] = {m.FORMAT.name: m.FORMAT for m in MODULES}
BY_SUFFIX: dict[str, Format] = {suffix: fmt for fmt in FORMATS.values() for suffix in fmt.suffixes}


def get(name: str) -> Format:
    return FORMATS[name]


def find(path) -> Format | None:
    """The format of a file by its suffix (any case), or None."""
    return BY_SUFFIX.get(Path(path).suffix.lower())


def of_kind(kind: str) -> list[Format]:
    return [fmt for fmt in FORMATS.values() if fmt.kind == kind]


def document_kind(path) -> str | None:
    fmt = find(path)
    return fmt.name if fmt is not None and fmt.kind == "document" else None


def table_format(path) -> str | None:
    fmt = find(path)
    return fmt.name if fmt is not None and fmt.kind == "table" else None


def suffix_list(kind: str) -> str:
    """`.docx, .pdf, .rtf`: the first suffix of each format of `kind`."""
    return ", ".join(fmt.suffixes[0] for fmt in of_kind(kind))


def describe() -> str:
    """What an input may be, for messages."""
    return (
        f"a {suffix_list('text')} file, a document ({suffix_list('document')}), a table "
        f"({suffix_list('table')}), a folder or a {suffix_list('reports')} file"
    )
