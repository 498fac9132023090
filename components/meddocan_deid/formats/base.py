"""What every format shares: `Format` (how the registry describes a source and its sink),
`Item` (one report of an input, as sources yield it), `Interchange` (a format de-identified whole
and written back in its own form), file names for ids, the extra a format needs, the Spark
source's columns and input (`SparkColumns`, `SparkInput`) and its sink (`SparkSink`), and
DocumentError. Messages name files and problems, never text."""

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..deid.records import Record
from ..errors import InputError

SAFE_ID = re.compile(r"[^A-Za-z0-9._-]")
MAX_ID_CHARS = 120
PAGE_BREAK = "\n\n"  # between the pages of a PDF and the parts of a .docx: a paragraph boundary
# what a format holds: one report (text), reports one per line (reports), one report in a
# document with its own layout (document), rows with named columns (table), files (folder),
# records exchanged between systems, written back in their own form (interchange)
KINDS = ("text", "reports", "document", "table", "folder", "interchange")


class DocumentError(InputError):
    """A document that cannot be read or written (the message names the problem, never text)."""


@dataclass(frozen=True)
class Format:
    """A format as the registry (formats/registry.py) lists it: its name, kind and suffixes
    (any case), the libraries it needs and the extra that installs them, and its source and
    sink, by kind:

    - document: `read_text(data, encoding) -> str` (the source); `write_document(data,
      new_text, replacements) -> bytes` (the sink, when the document is written back; else
      the de-identified text is written as `.txt` with its `.ann`);
    - table: `open_table(path, sheet=, encoding=) -> Table` (the source; `Table.write` is the sink);
    - reports, folder: `items(path, encoding, ...) -> Iterator[Item]` (the source; the sink is
      the output folder of `.txt` and `.ann`, engine/output.py); reports may also be a table
      (`open_table`) when its columns are named;
    - text: `read_text` decodes one report;
    - interchange: `interchange` (an `Interchange`): each file is de-identified whole and
      written back in its format under its own name.

    On Spark (`deidentify-spark`, the engine's Run): `spark_source(spark, path, columns)` reads
    the input as a DataFrame (`SparkInput`); `spark_sink` writes the output folder with Spark's
    own writer and reads back what it wrote.
    """

    name: str
    kind: str
    suffixes: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    extra: str | None = None
    read_text: Callable[..., str] | None = None
    write_document: Callable[[bytes, str, Sequence], bytes] | None = None
    open_table: Callable | None = None
    items: Callable | None = None
    spark_source: Callable[..., "SparkInput"] | None = None
    spark_sink: "SparkSink | None" = None
    interchange: "Interchange | None" = None
    # a document that may be page images (formats/scan.py): `read_scan(data, text_layer=) ->
    # Scan | None` (its text with each word's page and box; None: its text is read_text's),
    # and `write_redacted(data, scan, replacements) -> bytes` (its pages as images only, a
    # box over every PHI word)
    read_scan: Callable[..., Any] | None = None
    write_redacted: Callable[..., bytes] | None = None

    def missing(self) -> str | None:
        """Why this format cannot be read here (a library of its extra is not installed), or
        None."""
        for module in self.modules:
            try:
                __import__(module)
            except ImportError:
                return (
                    f"reading .{self.name} needs the {self.extra} extra ({module} is not "
                    "installed): "
                    f"pip install 'meddocan-deid[{self.extra}]'"
                )
        return None


@dataclass(frozen=True)
class Interchange:
    """A format whose files are de-identified whole and written back in their own form (FHIR
    JSON, HL7 v2 messages): `sniff(path)`, whether a file holds it by its content;
    `load_rules(path)`, its rule set from a JSON file (None: the shipped one); `policy_key`, the
    policy's entry of its rules; `rewriter(deidentifier, key, rules)`, the run's one rewriter, whose
    `collect(text, where)` sees every file of the run first (what it keeps across files) and
    `rewrite(text, where) -> (text, PHI per label)` gives one file back (InputError, or any
    error of a malformed file: that file fails by name)."""

    sniff: Callable[[Path], bool]
    load_rules: Callable[..., list]
    policy_key: str
    rewriter: Callable[..., Any]


@dataclass(frozen=True)
class SparkColumns:
    """The columns a Spark input is read with: the id, the text, the patient (used when the
    input has it) and the PHI columns (read as strings where the format has a schema)."""

    id: str = "id"
    text: str = "text"
    patient: str | None = "patient_id"
    phi: tuple[str, ...] = ()


@dataclass(frozen=True)
class SparkInput:
    """A Spark input as read: its DataFrame and the columns of its id, text and patient
    (None: none), and the column whose value, where not null, fails its row (None: none)."""

    frame: Any
    id: str
    text: str
    patient: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class SparkSink:
    """An output folder written by Spark (`_SUCCESS` on job commit): `write(frame, path,
    overwrite=)`, and `read(spark, path, id_column, status_column)`: what was written, to count
    its rows by status."""

    write: Callable[..., None]
    read: Callable[..., Any]


def spark_path(spark, path: str):
    """(the Hadoop file system of `path`, the path qualified by it): any Hadoop path."""
    jvm = spark.sparkContext._jvm
    hadoop = jvm.org.apache.hadoop.fs.Path(path)
    fs = hadoop.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    return fs, fs.makeQualified(hadoop)


@dataclass
class Item:
    """One report of the input: its id, its output stem (relative path without suffix),
    and either where to read it, its record, or why it cannot be read."""

    id: str
    stem: str
    path: Path | None = None
    record: Record | None = None
    error: str | None = None
    where: str = ""  # the file (and line) it comes from, as failure messages name it
    digest: str | None = None  # SHA-256 of the input's bytes (the file, or the JSONL line)
    encoding: str | None = None  # the codec its text was decoded with
    # a file of a folder that is not read, and why (a kind the CLI cannot read, a hidden file, a
    # link to a folder): listed in the run report, never dropped in silence
    not_read: str | None = None
    unsupported: bool = (
        False  # not_read because of its kind: the exit code says so unless asked to skip
    )
    document: str | None = None  # the name of its document format: its text is extracted
    interchange: str | None = None  # the name of its interchange format: written back whole
    scan: Any = None  # a document read as page images: its Scan (formats/scan.py), to redact


def safe_stem(raw_id: str) -> str:
    """A file name for an id: characters outside [A-Za-z0-9._-] become `_`, no leading dot,
    at most 120 characters; when that changes the id, a digest of the id is appended so
    that two ids never share a file."""
    stem = SAFE_ID.sub("_", raw_id).lstrip(".")[:MAX_ID_CHARS]
    if stem != raw_id or not stem:
        stem = f"{stem}-{hashlib.sha256(raw_id.encode('utf-8')).hexdigest()[:10]}"
    return stem


def document_item(
    rid: str, stem: str, path: Path, where: str, fmt: Format, *, folder: bool
) -> Item:
    """A document to read; without its extra, in a folder a file of a kind not read (a
    failure unless --skip-unsupported), given alone a failure, both naming the extra."""
    problem = fmt.missing()
    if problem is None:
        return Item(rid, stem, path=path, where=where, document=fmt.name)
    if folder:
        return Item(where, safe_stem(where), where=where, unsupported=True, not_read=problem)
    return Item(rid, stem, where=where, error=f"{where}: {problem}")


def interchange_item(rid: str, where: str, path: Path, fmt: Format, *, folder: bool) -> Item:
    """A FHIR or HL7 v2 file, written back whole under its own relative path `where` (each
    part made safe: its item's stem); without its extra, as `document_item`."""
    name = "/".join(safe_stem(part) for part in PurePosixPath(where).parts)
    problem = fmt.missing()
    if problem is None:
        return Item(rid, name, path=path, where=where, interchange=fmt.name)
    if folder:
        return Item(where, safe_stem(where), where=where, unsupported=True, not_read=problem)
    return Item(rid, name, where=where, error=f"{where}: {problem}")
