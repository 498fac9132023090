"""The registry of formats: each module of MODULES is a format (its `FORMAT`: a source and its
sink, formats/base.py). A new format is a module with a `FORMAT` and a line here.

Lookups: `get(name)`, `find(path)` (by the file's suffix, any case), `document_kind(path)` and
`table_format(path)` (the name of a document or table format, else None; a `.jsonl` file holds
reports and is a table only when its columns are named), `finder(input_format)` (the lookup of
a run: a FHIR or HL7 v2 file by its content), `describe()` (what an input may be),
`spark_input(path)` and `spark_formats(kind)` (the formats Spark reads and writes).
"""

from pathlib import Path

from . import (
    csv,
    docx,
    fhir,
    folder,
    hl7v2,
    image,
    jsonl,
    markdown,
    parquet,
    pdf,
    rtf,
    scans,
    text,
    tsv,
    xlsx,
)
from .base import Format

# in the order messages list them
MODULES = (
    text,
    folder,
    jsonl,
    csv,
    tsv,
    xlsx,
    parquet,
    docx,
    pdf,
    rtf,
    markdown,
    fhir,
    hl7v2,
    image,
    scans,
)
FORMATS: dict[str, Format] = {m.FORMAT.name: m.FORMAT for m in MODULES}
BY_SUFFIX: dict[str, Format] = {suffix: fmt for fmt in FORMATS.values() for suffix in fmt.suffixes}


def get(name: str) -> Format:
    return FORMATS[name]


def find(path) -> Format | None:
    """The format of a file by its suffix (any case), or None."""
    return BY_SUFFIX.get(Path(path).suffix.lower())


def interchange_names() -> list[str]:
    """The formats read whole and written back in their own form (fhir, hl7v2)."""
    return [name for name, fmt in FORMATS.items() if fmt.interchange is not None]


def finder(input_format: str = "auto"):
    """The lookup of a file's format in a run: by suffix, an interchange format (FHIR, HL7 v2)
    only where the file's content is of it; with `input_format` naming one, any file whose
    content is of it, whatever its suffix."""
    named = FORMATS[input_format].interchange if input_format != "auto" else None

    def find_in_run(path) -> Format | None:
        if named is not None and named.sniff(Path(path)):
            return FORMATS[input_format]
        fmt = find(path)
        if (
            fmt is not None
            and fmt.interchange is not None
            and not fmt.interchange.sniff(Path(path))
        ):
            return None
        return fmt

    return find_in_run


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
        f"({suffix_list('table')}), a folder, a {suffix_list('reports')} file, FHIR JSON "
        "(.json, .ndjson) or HL7 v2 messages (.hl7)"
    )


# the suffixes of the formats Spark reads, in the order an input folder is searched for them
SPARK_SUFFIXES = (
    (".parquet", "parquet"),
    (".jsonl", "jsonl"),
    (".json", "jsonl"),
    (".txt", "txt"),
    *((suffix, "scans") for suffix in scans.SUFFIXES),
)


def spark_formats(kind: str) -> list[str]:
    """The names of the formats Spark reads (`source`) or writes (`sink`)."""
    attribute = "spark_source" if kind == "source" else "spark_sink"
    return [name for name, fmt in FORMATS.items() if getattr(fmt, attribute) is not None]


def spark_input(path: str) -> str | None:
    """The format of a Spark input by its suffix (any case) or, for a local folder, by the
    first suffix of SPARK_SUFFIXES its files have; None when that cannot be told."""
    local = Path(path)
    suffix = local.suffix.lower()
    for wanted, name in SPARK_SUFFIXES:
        if suffix == wanted:
            return name
    if local.is_dir():
        names = [
            p.name.lower()
            for p in local.rglob("*")
            if p.is_file() and not p.name.startswith((".", "_"))
        ]
        for wanted, name in SPARK_SUFFIXES:
            if any(n.endswith(wanted) for n in names):
                return name
    return None
