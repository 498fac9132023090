"""File I/O of the CLI: inputs (a .txt file, a folder, a JSONL file), output paths,
resume, crash-safe writes and the run report. Messages name files and problems, never text.

Write order per report: the `.ann` first, the `.txt` last, each through a temporary file
renamed into place; a report is done when its `.txt` exists. A kill at any point leaves
either a complete report or one that the next run redoes; leftover temporary files are
removed when a run starts.
"""
import codecs
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional

from ..files import atomic_write
from .ann import format_output_ann, format_private_ann
from .batch import Record
from .operators import Replacement

SAFE_ID = re.compile(r"[^A-Za-z0-9._-]")
TMP_FILE = re.compile(r"^\..+\.(txt|ann|json)\.[A-Za-z0-9_]+\.tmp$")
MAX_ID_CHARS = 120


class InputError(ValueError):
    """An input that cannot be used at all (the run does not start)."""


@dataclass
class Item:
    """One report of the input: its id, its output stem (relative path without suffix),
    and either where to read it, its record, or why it cannot be read."""

    id: str
    stem: str
    path: Optional[Path] = None
    record: Optional[Record] = None
    error: Optional[str] = None


def input_kind(path: Path) -> str:
    path = Path(path)
    if path.is_dir():
        return "folder"
    if not path.exists():
        raise InputError(f"{path}: input not found")
    if path.suffix.lower() == ".jsonl":
        return "jsonl"
    if path.suffix.lower() == ".txt":
        return "txt"
    raise InputError(f"{path}: expected a .txt file, a folder or a .jsonl file")


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
        yield Item(input_path.stem, safe_stem(input_path.stem), path=input_path)
    elif kind == "folder":
        files = sorted(p for p in input_path.rglob("*.txt")
                       if p.is_file() and not any(part.startswith(".") for part in p.relative_to(input_path).parts))
        for p in files:
            rel = p.relative_to(input_path).with_suffix("")
            parts = [safe_stem(part) for part in rel.parts]
            yield Item(rel.as_posix(), "/".join(parts), path=p)
    else:
        yield from _iter_jsonl(input_path, encoding)


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
            try:
                line = raw.decode(encoding)
            except UnicodeDecodeError as err:
                yield Item(where, where, error=f"{path.name}:{lineno}: not valid {encoding_label(encoding)} (byte {err.start})")
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                yield Item(where, where, error=f"{path.name}:{lineno}: not valid JSON")
                continue
            if not isinstance(obj, dict) or not isinstance(obj.get("id"), (str, int)) or isinstance(obj.get("id"), bool):
                yield Item(where, where, error=f"{path.name}:{lineno}: no 'id' (string or integer)")
                continue
            rid = str(obj["id"])
            stem = safe_stem(rid)
            if rid in seen_ids:
                yield Item(rid, stem, error=f"{path.name}:{lineno}: duplicate id")
                continue
            seen_ids.add(rid)
            if stem.casefold() in seen_stems:  # two ids that differ only by case
                stem = f"{stem}-{hashlib.sha256(rid.encode('utf-8')).hexdigest()[:10]}"
            seen_stems.add(stem.casefold())
            text = obj.get("text")
            if not isinstance(text, str):
                yield Item(rid, stem, error=f"{path.name}:{lineno}: no 'text' string")
                continue
            patient = obj.get("patient_id")
            if patient is not None and not isinstance(patient, (str, int)):
                yield Item(rid, stem, error=f"{path.name}:{lineno}: 'patient_id' is not a string")
                continue
            patient = None if patient is None else str(patient)
            known, problem = record_known_phi(obj.get("known_phi"), patient, pooled, f"{path.name}:{lineno}")
            if problem is not None:
                yield Item(rid, stem, error=problem)
                continue
            yield Item(rid, stem, record=Record(rid, text, patient, known))


def load_item(item: Item, max_chars: int, encoding: str = "utf-8") -> Item:
    """Read the text of a file item; set `error` instead of raising."""
    if item.record is not None or item.error is not None or item.path is None:
        return item
    path = item.path
    try:
        size = path.stat().st_size
        if size > 4 * max_chars:
            item.error = f"{path.name}: file too large ({size} bytes)"
            return item
        data = path.read_bytes()
    except OSError as err:
        item.error = f"{path.name}: cannot read ({err.strerror or type(err).__name__})"
        return item
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        item.error = f"{path.name}: not valid {encoding_label(encoding)} (byte {err.start})"
        return item
    item.record = Record(item.id, text)
    return item


def encoding_label(encoding: str) -> str:
    """How messages name an input encoding: `UTF-8` for the default, else the codec name."""
    return "UTF-8" if codecs.lookup(encoding).name == "utf-8" else encoding


def output_paths(output: Path, stem: str):
    base = Path(output) / stem
    return base.with_name(base.name + ".txt"), base.with_name(base.name + ".ann")


def is_done(output: Path, stem: str) -> bool:
    return output_paths(output, stem)[0].exists()


def format_ann(new_text: str, replacements: List[Replacement]) -> str:
    """BRAT lines in the OUTPUT's offsets, each entity on its replacement (see deid.ann)."""
    return format_output_ann(new_text, replacements)


def write_report(output: Path, stem: str, new_text: str, replacements: List[Replacement]) -> None:
    txt, ann = output_paths(output, stem)
    if txt.exists():  # --overwrite: the old .txt goes first, so a kill never pairs old and new
        txt.unlink()
    atomic_write(ann, format_ann(new_text, replacements))
    atomic_write(txt, new_text)


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
