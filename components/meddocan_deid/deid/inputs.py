"""Checks made on the input before a run starts: the input encoding, and how many reports
there are to read (an input with none is an error that says what was found instead).
Messages name files, extensions and counts, never text."""
import codecs
from collections import Counter
from pathlib import Path

from .io import InputError, input_kind, iter_items


def resolve_encoding(name: str) -> str:
    """The codec name for `--encoding` (any Python codec for text); InputError otherwise."""
    try:
        info = codecs.lookup(name)
    except (LookupError, TypeError, ValueError):
        raise InputError(f"--encoding {name!r}: unknown encoding (examples: utf-8, cp1252, latin-1)") from None
    if not getattr(info, "_is_text_encoding", True):  # e.g. base64, rot13: bytes-to-bytes codecs
        raise InputError(f"--encoding {name!r}: not a text encoding (examples: utf-8, cp1252, latin-1)")
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
    found = ", ".join(f"{n} {ext}" for ext, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"{found}, no .txt"


def count_inputs(input_path: Path) -> int:
    """How many reports the input holds, counted before the run (the progress bar's total).
    Raises InputError when there is none: a folder without .txt files, an empty JSONL file."""
    input_path = Path(input_path)
    kind = input_kind(input_path)
    if kind in ("txt", "document"):
        return 1
    if kind == "table":
        list(iter_items(input_path))  # raises the InputError that says how to read a table
    if kind == "folder":
        items = list(iter_items(input_path))
        n = len(items)
        if not any(item.not_read is None for item in items):
            extra = next((item.not_read for item in items if item.not_read and " extra " in item.not_read), None)
            advice = ("convert the reports to plain-text .txt files first" if extra is None
                      else f"convert the reports to plain-text .txt files first, or: {extra}")
            raise InputError(f"{input_path}: no .txt report to read ({describe_folder(input_path)}); {advice}")
        return n
    try:
        with open(input_path, "rb") as fh:
            n = sum(1 for raw in fh if raw.strip())  # what iter_items yields: one item per non-blank line
    except OSError as err:
        raise InputError(f"{input_path}: cannot read ({err.strerror or type(err).__name__})") from None
    if n == 0:
        raise InputError(f"{input_path}: empty JSONL file (no report line; expected one JSON object per line "
                         "with 'id' and 'text')")
    return n
