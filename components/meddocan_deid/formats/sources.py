"""The input of a run, whatever its format: what kind it is (`input_kind`), the checks made
before a run starts (the paths, the encoding, how many reports there are: an input with none is
an error that says what was found instead), its items (`iter_items`, through the registry's
format of the input) and the reading of one item's text (`load_item`). Messages name files,
extensions and counts, never text.

Resume: each item carries the digest of its input's bytes (the file, or the JSONL line); an
item's text is read as UTF-8 when it is valid UTF-8, else in the encoding charset-normalizer
detects with confidence, else in the fallback (`--encoding`).
"""

import codecs
import hashlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from ..deid.records import Record
from ..errors import InputError
from . import registry
from .base import DocumentError, Item, document_item, interchange_item, safe_stem
from .encodings import decode_bytes, encoding_label

# input_kind's names for the kinds of formats
INPUT_KINDS = {
    "text": "txt",
    "reports": "jsonl",
    "document": "document",
    "table": "table",
    "interchange": "interchange",
}


def input_kind(path: Path, input_format: str = "auto") -> str:
    """folder, jsonl, txt, document, table or interchange: the kind of the input's format
    (`input_format`: auto, or an interchange format the input is read as, e.g. fhir)."""
    path = Path(path)
    if input_format not in ("auto", *registry.interchange_names()):
        raise InputError(
            f"unknown --input-format {input_format!r} (expected auto, "
            f"{', '.join(registry.interchange_names())})"
        )
    if path.is_dir():
        return "folder"
    if not path.exists():
        raise InputError(f"{path}: input not found")
    fmt = file_format(path, input_format)
    if fmt is None:
        raise InputError(f"{path}: expected {registry.describe()}")
    return INPUT_KINDS[fmt.kind]


def file_format(path: Path, input_format: str = "auto"):
    """The format an input file is read as: the named interchange format, else the registry's
    lookup of a run (a .json file is FHIR where its content is)."""
    if input_format != "auto":
        return registry.get(input_format)
    return registry.finder()(path)


def format_of_input(path: Path, input_format: str = "auto"):
    """The registry's format of the input."""
    return registry.get("folder") if Path(path).is_dir() else file_format(path, input_format)


def check_paths(input_path: Path, output: Path) -> None:
    inp = Path(input_path).resolve()
    out = Path(output).resolve()
    if out.exists() and not out.is_dir():
        raise InputError(f"{output}: output exists and is not a folder")
    if inp.is_dir() and (out == inp or inp in out.parents):
        raise InputError(f"{output}: the output folder must not be inside the input folder")


def extract_text(data: bytes, name: str, encoding: str = "utf-8") -> str:
    """The plain text of a document of format `name` given as bytes (DocumentError)."""
    fmt = registry.get(name)
    problem = fmt.missing()
    if problem is not None:
        raise DocumentError(problem)
    if fmt.read_text is None:
        raise DocumentError(f"no reader of .{name} documents")
    return fmt.read_text(data, encoding)


def iter_items(
    input_path: Path, encoding: str = "utf-8", input_format: str = "auto"
) -> Iterator[Item]:
    """The items of the input (`input_format`: auto, or an interchange format: a file is read
    as it, a folder's files where their content is of it)."""
    input_path = Path(input_path)
    kind = input_kind(input_path, input_format)
    if kind == "table":
        raise InputError(
            f"{input_path}: a table is read with its columns named: give --id-column and "
            "--text-column (or meddocan_deid.deid.tables.deidentify_table)"
        )
    fmt = format_of_input(input_path, input_format)
    if fmt is None:
        raise InputError(f"{input_path}: expected {registry.describe()}")
    if kind == "interchange":
        yield interchange_item(input_path.stem, input_path.name, input_path, fmt, folder=False)
        return
    if kind == "document":
        yield document_item(
            input_path.stem,
            safe_stem(input_path.stem),
            input_path,
            input_path.name,
            fmt,
            folder=False,
        )
        return
    if fmt.items is None:
        raise InputError(f"{input_path}: expected {registry.describe()}")
    yield from fmt.items(input_path, encoding, registry.finder(input_format))


def read_document(data: bytes, name: str, encoding: str = "utf-8", *, text_layer: bool = False):
    """(the text, its Scan or None) of a document of format `name`: a scan (a PDF without text,
    an image) is read by OCR with its words' boxes, and so is a PDF's text layer when
    `text_layer` (a redacted copy is asked); DocumentError."""
    fmt = registry.get(name)
    if fmt.read_scan is not None and fmt.missing() is None:
        scan = fmt.read_scan(data, text_layer=text_layer)
        if scan is not None:
            return scan.text, scan
    return extract_text(data, name, encoding), None


def load_item(
    item: Item,
    max_chars: int,
    encoding: str = "utf-8",
    *,
    skip=None,
    text_layer: bool = False,
) -> Item:
    """Read the text of a file item; set `error` instead of raising. skip(digest): True when
    its report is already written (its bytes and digest are read, its text is not: no OCR);
    text_layer: a PDF with text is read with its words' boxes too (`item.scan`)."""
    if item.record is not None or item.error is not None or item.path is None:
        return item
    path = item.path
    where = item.where or path.name
    try:
        if not path.is_file():
            item.error = f"{where}: cannot read (a broken link or not a regular file)"
            return item
        size = path.stat().st_size
        if size > 4 * max_chars and item.interchange is None:  # read whole, its texts each checked
            item.error = f"{where}: file too large ({size} bytes)"
            return item
        data = path.read_bytes()
    except OSError as err:
        item.error = f"{where}: cannot read ({err.strerror or type(err).__name__})"
        return item
    item.digest = hashlib.sha256(data).hexdigest()
    if skip is not None and skip(item.digest):
        return item
    if item.document is not None:
        try:
            text, item.scan = read_document(data, item.document, encoding, text_layer=text_layer)
        except DocumentError as err:
            item.error = f"{where}: {err}"
            return item
        item.encoding = item.document  # the run report counts documents by their kind
        item.record = Record(item.id, text)
        return item
    try:
        text, item.encoding = decode_bytes(data, encoding)
    except UnicodeDecodeError as err:
        item.error = f"{where}: not valid {encoding_label(encoding)} (byte {err.start})"
        return item
    item.record = Record(item.id, text)
    return item


def resolve_encoding(name: str) -> str:
    """The codec name for `--encoding` (any Python codec for text); InputError otherwise."""
    try:
        info = codecs.lookup(name)
    except (LookupError, TypeError, ValueError):
        raise InputError(
            f"--encoding {name!r}: unknown encoding (examples: utf-8, cp1252, latin-1)"
        ) from None
    if not getattr(info, "_is_text_encoding", True):  # e.g. base64, rot13: bytes-to-bytes codecs
        raise InputError(
            f"--encoding {name!r}: not a text encoding (examples: utf-8, cp1252, latin-1)"
        )
    return info.name


def _visible_files(folder: Path):
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts):
            yield p


def describe_folder(folder: Path) -> str:
    """What a folder holds, by extension: `3 .pdf, 2 .docx, no .txt` or `the folder is empty`."""
    counts = Counter(p.suffix or "(no extension)" for p in _visible_files(Path(folder)))
    if not counts:
        return "the folder is empty"
    found = ", ".join(
        f"{n} {ext}" for ext, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    return f"{found}, no .txt"


def count_inputs(input_path: Path, input_format: str = "auto") -> int:
    """How many reports the input holds, counted before the run (the progress bar's total).
    Raises InputError when there is none: a folder without .txt files, an empty JSONL file."""
    input_path = Path(input_path)
    kind = input_kind(input_path, input_format)
    if kind in ("txt", "document", "interchange"):
        return 1
    if kind == "table":
        list(iter_items(input_path))  # raises the InputError that says how to read a table
    if kind == "folder":
        items = list(iter_items(input_path, input_format=input_format))
        n = len(items)
        if not any(item.not_read is None for item in items):
            extra = next(
                (item.not_read for item in items if item.not_read and " extra " in item.not_read),
                None,
            )
            advice = (
                "convert the reports to plain-text .txt files first"
                if extra is None
                else f"convert the reports to plain-text .txt files first, or: {extra}"
            )
            raise InputError(
                f"{input_path}: no .txt report to read ({describe_folder(input_path)}); {advice}"
            )
        return n
    try:
        with open(input_path, "rb") as fh:
            n = sum(
                1 for raw in fh if raw.strip()
            )  # what iter_items yields: one item per non-blank line
    except OSError as err:
        raise InputError(
            f"{input_path}: cannot read ({err.strerror or type(err).__name__})"
        ) from None
    if n == 0:
        raise InputError(
            f"{input_path}: empty JSONL file (no report line; expected one JSON object per line "
            "with 'id' and 'text')"
        )
    return n
