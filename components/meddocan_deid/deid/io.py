"""The inputs of a run: a .txt file, a document, a folder or a JSONL file, read into items
(the output folder, its lock and its writes: engine/output.py). Messages name files and problems, never text.

Documents (`.docx`, `.pdf`, `.rtf`; deid/documents.py) are reports when the `documents` extra
is installed: their extracted text is de-identified and written as `.txt` with its `.ann`, and a
`.docx` also gets its de-identified `.docx`. Without the extra, a document in a folder is a file
of a kind not read (a failure unless --skip-unsupported) whose reason names the extra. Tables
(CSV, TSV, Excel, Parquet) are read by deid/tables.py, never as reports.

Write order per report: the `.ann` first, the `.txt` last, each through a temporary file
renamed into place; a report is done when its `.txt` exists. A kill at any point leaves
either a complete report or one that the next run redoes; leftover temporary files are
removed when a run starts.

Resume: each written report's input digest (SHA-256 of the file's bytes, or of the JSONL
line) is appended to `OUTPUT/.meddocan-deid-inputs.jsonl` after its `.txt`; a report is
skipped only when its `.txt` exists and its recorded digest is that of the input now, so
an input edited after a run is redone. Encodings: each input is read as UTF-8 when it is
valid UTF-8, else in the encoding that charset-normalizer detects with confidence, else
in the fallback (`--encoding`).
"""
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterator, Optional

from ..errors import InputError
from .documents import DocumentError, document_kind, extract_text, missing_extra
from .encodings import decode_bytes, encoding_label
from .known_phi import pooled_known_phi, record_known_phi
from .records import Record
from .tables import table_format

SAFE_ID = re.compile(r"[^A-Za-z0-9._-]")
MAX_ID_CHARS = 120


@dataclass
class Item:
    """One report of the input: its id, its output stem (relative path without suffix),
    and either where to read it, its record, or why it cannot be read."""

    id: str
    stem: str
    path: Optional[Path] = None
    record: Optional[Record] = None
    error: Optional[str] = None
    where: str = ""  # the file (and line) it comes from, as failure messages name it
    digest: Optional[str] = None  # SHA-256 of the input's bytes (the file, or the JSONL line)
    encoding: Optional[str] = None  # the codec its text was decoded with
    # a file of a folder that is not read, and why (a kind the CLI cannot read, a hidden file, a
    # link to a folder): listed in the run report, never dropped in silence
    not_read: Optional[str] = None
    unsupported: bool = False  # not_read because of its kind: the exit code says so unless asked to skip
    document: Optional[str] = None  # docx, pdf or rtf: its text is extracted (deid/documents.py)


def input_kind(path: Path) -> str:
    """folder, jsonl, txt, document (.docx, .pdf, .rtf) or table (.csv, .tsv, .xlsx, .parquet)."""
    path = Path(path)
    if path.is_dir():
        return "folder"
    if not path.exists():
        raise InputError(f"{path}: input not found")
    if path.suffix.lower() == ".jsonl":
        return "jsonl"
    if is_text_name(path):
        return "txt"
    if document_kind(path) is not None:
        return "document"
    if table_format(path) is not None:
        return "table"
    raise InputError(f"{path}: expected a .txt file, a document (.docx, .pdf, .rtf), a table (.csv, .tsv, .xlsx, "
                     ".parquet), a folder or a .jsonl file")


def is_text_name(path: Path) -> bool:
    """A plain-text report by its name: `.txt` in any case (`.TXT`, `.Txt`)."""
    return Path(path).suffix.lower() == ".txt"


def check_paths(input_path: Path, output: Path) -> None:
    inp = Path(input_path).resolve()
    out = Path(output).resolve()
    if out.exists() and not out.is_dir():
        raise InputError(f"{output}: output exists and is not a folder")
    if inp.is_dir() and (out == inp or inp in out.parents):
        raise InputError(f"{output}: the output folder must not be inside the input folder")


def safe_stem(raw_id: str) -> str:
    """A file name for an id: characters outside [A-Za-z0-9._-] become `_`, no leading dot,
    at most 120 characters; when that changes the id, a digest of the id is appended so
    that two ids never share a file."""
    stem = SAFE_ID.sub("_", raw_id).lstrip(".")[:MAX_ID_CHARS]
    if stem != raw_id or not stem:
        stem = f"{stem}-{hashlib.sha256(raw_id.encode('utf-8')).hexdigest()[:10]}"
    return stem


def iter_items(input_path: Path, encoding: str = "utf-8") -> Iterator[Item]:
    input_path = Path(input_path)
    kind = input_kind(input_path)
    if kind == "txt":
        yield Item(input_path.stem, safe_stem(input_path.stem), path=input_path, where=input_path.name)
    elif kind == "document":
        yield _document_item(input_path.stem, safe_stem(input_path.stem), input_path, input_path.name, folder=False)
    elif kind == "table":
        raise InputError(f"{input_path}: a table is read with its columns named: give --id-column and "
                         "--text-column (or meddocan_deid.deid.tables.deidentify_table)")
    elif kind == "folder":
        yield from _iter_folder(input_path)
    else:
        yield from _iter_jsonl(input_path, encoding)


def _iter_folder(folder: Path) -> Iterator[Item]:
    """Every entry under `folder`, sorted: a `.txt` file (any case) or a document (`.docx`,
    `.pdf`, `.rtf`) is a report; any other file, a hidden file or folder (listed once, not
    entered) and a link to a folder (not followed: rglob does not, so a link loop ends) is an
    item that is not read, with its reason."""
    seen_ids = set()
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        where = rel.as_posix()
        if any(part.startswith(".") for part in rel.parts[:-1]):
            continue  # inside a hidden folder, which is listed itself
        if rel.name.startswith("."):
            yield Item(where, safe_stem(where), where=where, not_read="hidden file or folder, not read")
            continue
        if p.is_symlink() and p.is_dir():
            yield Item(where, safe_stem(where), where=where, not_read="link to a folder, not followed")
            continue
        if p.is_dir():
            continue
        if not is_text_name(p) and document_kind(p) is None:
            kind = p.suffix.lower() or "no extension"
            hint = ("a table: run it alone with --id-column and --text-column" if table_format(p) is not None
                    else "convert it to .txt")
            yield Item(where, safe_stem(where), where=where, unsupported=True,
                       not_read=f"not a plain-text report ({kind}): {hint}")
            continue
        rid = rel.with_suffix("").as_posix()
        if rid.casefold() in seen_ids:  # `a.txt` beside `a.TXT` or `a.docx`: the second keeps its suffix in its id
            rid = where
        seen_ids.add(rid.casefold())
        stem = "/".join(safe_stem(part) for part in PurePosixPath(rid).parts)
        if document_kind(p) is not None:
            yield _document_item(rid, stem, p, where, folder=True)
        else:
            yield Item(rid, stem, path=p, where=where)


def _document_item(rid: str, stem: str, path: Path, where: str, *, folder: bool) -> Item:
    """A document to read; without its extra, in a folder a file of a kind not read (a
    failure unless --skip-unsupported), given alone a failure, both naming the extra."""
    kind = document_kind(path)
    problem = missing_extra(kind)
    if problem is None:
        return Item(rid, stem, path=path, where=where, document=kind)
    if folder:
        return Item(where, safe_stem(where), where=where, unsupported=True, not_read=problem)
    return Item(rid, stem, where=where, error=f"{where}: {problem}")


def _iter_jsonl(path: Path, encoding: str = "utf-8") -> Iterator[Item]:
    pooled = pooled_known_phi(path, encoding)  # a first pass: the known identifiers of each patient
    seen_ids = set()
    seen_stems = set()
    try:
        fh = open(path, "rb")
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror or type(err).__name__})") from None
    with fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            where = f"line-{lineno}"
            loc = f"{path.name}:{lineno}"
            digest = hashlib.sha256(raw.rstrip(b"\r\n")).hexdigest()
            try:
                line, used = decode_bytes(raw, encoding)
            except UnicodeDecodeError as err:
                yield Item(where, where, error=f"{loc}: not valid {encoding_label(encoding)} (byte {err.start})",
                           where=loc)
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                yield Item(where, where, error=f"{loc}: not valid JSON", where=loc)
                continue
            if not isinstance(obj, dict) or not isinstance(obj.get("id"), (str, int)) or isinstance(obj.get("id"), bool):
                yield Item(where, where, error=f"{loc}: no 'id' (string or integer)", where=loc)
                continue
            rid = str(obj["id"])
            stem = safe_stem(rid)
            if rid in seen_ids:
                yield Item(rid, stem, error=f"{loc}: duplicate id", where=loc)
                continue
            seen_ids.add(rid)
            if stem.casefold() in seen_stems:  # two ids that differ only by case
                stem = f"{stem}-{hashlib.sha256(rid.encode('utf-8')).hexdigest()[:10]}"
            seen_stems.add(stem.casefold())
            text = obj.get("text")
            if not isinstance(text, str):
                yield Item(rid, stem, error=f"{loc}: no 'text' string", where=loc)
                continue
            patient = obj.get("patient_id")
            if patient is not None and not isinstance(patient, (str, int)):
                yield Item(rid, stem, error=f"{loc}: 'patient_id' is not a string", where=loc)
                continue
            patient = None if patient is None else str(patient)
            known, problem = record_known_phi(obj.get("known_phi"), patient, pooled, loc)
            if problem is not None:
                yield Item(rid, stem, error=problem, where=loc)
                continue
            yield Item(rid, stem, record=Record(rid, text, patient, known), where=loc, digest=digest, encoding=used)


def load_item(item: Item, max_chars: int, encoding: str = "utf-8") -> Item:
    """Read the text of a file item; set `error` instead of raising."""
    if item.record is not None or item.error is not None or item.path is None:
        return item
    path = item.path
    where = item.where or path.name
    try:
        if not path.is_file():
            item.error = f"{where}: cannot read (a broken link or not a regular file)"
            return item
        size = path.stat().st_size
        if size > 4 * max_chars:
            item.error = f"{where}: file too large ({size} bytes)"
            return item
        data = path.read_bytes()
    except OSError as err:
        item.error = f"{where}: cannot read ({err.strerror or type(err).__name__})"
        return item
    item.digest = hashlib.sha256(data).hexdigest()
    if item.document is not None:
        try:
            text = extract_text(data, item.document, encoding)
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


