"""File I/O of the CLI: inputs (a .txt file, a document, a folder, a JSONL file), output
paths, resume, crash-safe writes and the run report. Messages name files and problems, never text.

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
import codecs
import errno
import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Dict, Iterator, List, Optional, Tuple

from ..files import atomic_write
from ..brat import format_output_ann, format_private_ann
from .records import Record
from .operators import Replacement
from ..errors import InputError, OutputFullError, OutputLockedError  # noqa: F401  (re-exported)

SAFE_ID = re.compile(r"[^A-Za-z0-9._-]")
TMP_FILE = re.compile(r"^\..+\.(txt|ann|json|jsonl|docx)\.[A-Za-z0-9_]+\.tmp$")
MAX_ID_CHARS = 120
DIGESTS_NAME = ".meddocan-deid-inputs.jsonl"
LOCK_NAME = ".meddocan-deid.lock"
# a full disk or an exhausted quota: the run stops (every later write would fail too)
DISK_FULL_ERRNOS = frozenset(e for e in (getattr(errno, "ENOSPC", None), getattr(errno, "EDQUOT", None)) if e)


def is_disk_full(err: BaseException) -> bool:
    return isinstance(err, OSError) and not isinstance(err, OutputFullError) and err.errno in DISK_FULL_ERRNOS


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
    from .documents import document_kind
    from .tables import table_format

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
    from .documents import document_kind
    from .tables import table_format

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
    from .documents import document_kind, missing_extra

    kind = document_kind(path)
    problem = missing_extra(kind)
    if problem is None:
        return Item(rid, stem, path=path, where=where, document=kind)
    if folder:
        return Item(where, safe_stem(where), where=where, unsupported=True, not_read=problem)
    return Item(rid, stem, where=where, error=f"{where}: {problem}")


def _iter_jsonl(path: Path, encoding: str = "utf-8") -> Iterator[Item]:
    from .known_phi import pooled_known_phi, record_known_phi

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
        from .documents import DocumentError, extract_text

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


def decode_bytes(data: bytes, fallback: str = "utf-8") -> Tuple[str, str]:
    """(text, codec name): UTF-8 when `data` is valid UTF-8 (strict); else the encoding
    charset-normalizer detects with confidence; else `fallback`. Detection is confident when
    the fallback is not among its candidates and every candidate decodes `data` to the same
    text (for Spanish in cp1252 it also proposes cp1250, which reads `ñ` as `ń`: not
    confident). Raises UnicodeDecodeError when `fallback` is needed and does not decode."""
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    fallback = codecs.lookup(fallback).name
    detected = _detect(data, fallback)
    if detected is not None:
        return detected
    return data.decode(fallback), fallback


def _detect(data: bytes, fallback: str) -> Optional[Tuple[str, str]]:
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        return None
    names = []
    for m in matches:
        try:
            names.append(codecs.lookup(m.encoding).name)
        except LookupError:
            return None
    if fallback in names:
        return None  # a plausible reading: the user's choice decides
    texts = {str(m) for m in matches}
    if len(texts) != 1:
        return None
    return texts.pop(), names[0]


def encoding_label(encoding: str) -> str:
    """How messages name an input encoding: `UTF-8` for the default, else the codec name."""
    return "UTF-8" if codecs.lookup(encoding).name == "utf-8" else encoding


def output_paths(output: Path, stem: str):
    base = Path(output) / stem
    return base.with_name(base.name + ".txt"), base.with_name(base.name + ".ann")


def is_done(output: Path, stem: str, digest: Optional[str] = None,
            digests: Optional[Dict[str, str]] = None) -> bool:
    """The report's `.txt` exists and, when `digest` is given, the input digest recorded
    for it (`digests`, as read by `read_digests`) is `digest`."""
    if not output_paths(output, stem)[0].exists():
        return False
    if digest is None:
        return True
    return digests is not None and digests.get(stem) == digest


def read_digests(output: Path) -> Dict[str, str]:
    """stem -> the digest of the input its report was made from (the last line wins; a
    line cut by a kill is ignored)."""
    path = Path(output) / DIGESTS_NAME
    found: Dict[str, str] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return found
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("stem"), str) and isinstance(obj.get("sha256"), str):
            found[obj["stem"]] = obj["sha256"]
    return found


def record_digest(output: Path, stem: str, digest: str) -> None:
    """Append the input digest of a report just written (after its `.txt`)."""
    with open(Path(output) / DIGESTS_NAME, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"stem": stem, "sha256": digest}) + "\n")


def compact_digests(output: Path) -> None:
    """Rewrite the digest file sorted, one line per report (the same run gives the same
    file, resumed or not)."""
    path = Path(output) / DIGESTS_NAME
    if not path.exists():
        return
    found = read_digests(output)
    atomic_write(path, "".join(json.dumps({"stem": k, "sha256": found[k]}) + "\n" for k in sorted(found)))


class RunLock:
    """`OUTPUT/.meddocan-deid.lock`, created with O_EXCL and holding the pid of the run:
    a second run into the same folder is refused (OutputLockedError). A lock whose pid is
    not running is stale (a killed run) and taken over, with a warning through `warn`."""

    def __init__(self, output: Path, warn=None):
        self.path = Path(output) / LOCK_NAME
        self.warn = warn
        self.held = False

    def acquire(self) -> "RunLock":
        for _attempt in range(2):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                pid = _lock_pid(self.path)
                if pid is not None and _running(pid):
                    raise OutputLockedError(
                        f"{self.path.parent}: another run (pid {pid}) is writing into this folder; wait for it "
                        f"to end or choose another output folder (if no run is going on, remove {self.path})"
                    ) from None
                if self.warn is not None:
                    self.warn(f"{self.path}: stale lock of a run that is no longer running "
                              f"({'pid ' + str(pid) if pid is not None else 'no pid'}); taking it over")
                try:
                    self.path.unlink()
                except FileNotFoundError:
                    pass
                continue
            try:
                with os.fdopen(fd, "w", encoding="ascii") as fh:
                    fh.write(f"{os.getpid()}\n")
            except BaseException:  # e.g. a full disk: leave no empty lock behind
                self.path.unlink(missing_ok=True)
                raise
            self.held = True
            return self
        raise OutputLockedError(f"{self.path.parent}: another run took the lock {self.path} at the same time")

    def release(self) -> None:
        if self.held:
            self.held = False
            try:
                if _lock_pid(self.path) == os.getpid():
                    self.path.unlink()
            except OSError:
                pass

    def __enter__(self) -> "RunLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _lock_pid(path: Path) -> Optional[int]:
    try:
        text = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def _running(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # a process of another user
        return True
    except OSError:
        return False
    return True


def format_ann(new_text: str, replacements: List[Replacement]) -> str:
    """BRAT lines in the OUTPUT's offsets, each entity on its replacement (see meddocan_deid.brat)."""
    return format_output_ann(new_text, replacements)


def write_report(output: Path, stem: str, new_text: str, replacements: List[Replacement], *,
                 docx: Optional[Tuple[Path, str]] = None) -> None:
    """The `.ann` then the `.txt` of a report. docx: (the source `.docx`, the digest of its
    bytes when it was read): its de-identified `.docx` is written first.
    Raises OSError when the source cannot be rewritten (e.g. it changed since it was read)."""
    txt, ann = output_paths(output, stem)
    if txt.exists():  # --overwrite: the old .txt goes first, so a kill never pairs old and new
        txt.unlink()
    if docx is not None:
        atomic_write(txt.with_suffix(".docx"), _docx_bytes(docx, new_text, replacements))
    atomic_write(ann, format_ann(new_text, replacements))
    atomic_write(txt, new_text)


def _docx_bytes(docx: Tuple[Path, str], new_text: str, replacements: List[Replacement]) -> bytes:
    from .documents import DocumentError, rewrite_docx

    source, digest = docx
    data = Path(source).read_bytes()
    try:
        if hashlib.sha256(data).hexdigest() != digest:  # the same bytes give the same extracted text
            raise DocumentError("the .docx changed while it was being de-identified; rerun it")
        return rewrite_docx(data, new_text, replacements)
    except DocumentError as err:  # the runner reports an OSError as a failed report, by name
        raise OSError(errno.EINVAL, str(err)) from None


def check_private_dir(private_dir: Path, output: Path, input_path: Optional[Path] = None,
                      what: str = "--private-dir") -> None:
    """Refuse a folder for PHI (original annotations, review pages) that is the shared
    OUTPUT or inside it, or that is inside the INPUT folder (its files would be read
    as input by the next run)."""
    priv = Path(private_dir).resolve()
    out = Path(output).resolve()
    if priv == out or out in priv.parents:
        raise InputError(f"{private_dir}: {what} must not be the output folder or inside it "
                         f"(it holds PHI; the output is meant to be shared)")
    if input_path is not None:
        inp = Path(input_path).resolve()
        if inp.is_dir() and (priv == inp or inp in priv.parents):
            raise InputError(f"{private_dir}: {what} must not be inside the input folder")
    if priv.exists() and not priv.is_dir():
        raise InputError(f"{private_dir}: {what} exists and is not a folder")


def write_private(private_dir: Path, stem: str, original: str, replacements: List[Replacement]) -> None:
    """The original text and its BRAT `.ann` (original offsets, original PHI), as `stem.txt`
    and `stem.ann` in the private folder: a BRAT collection of the originals whose `T<n>`
    are those of the shared `.ann`."""
    txt, ann = output_paths(private_dir, stem)
    atomic_write(ann, format_private_ann(original, replacements))
    atomic_write(txt, original)


def remove_temp_files(output: Path) -> int:
    """Remove temporary files left by a killed run; returns how many."""
    output = Path(output)
    if not output.is_dir():
        return 0
    n = 0
    for p in output.rglob(".*.tmp"):
        if p.is_file() and TMP_FILE.match(p.name):
            p.unlink()
            n += 1
    return n


def write_json(path: Path, data) -> None:
    atomic_write(Path(path), json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False) + "\n")
